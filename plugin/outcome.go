package plugin

// Outcome is how a call ends: Ok, with model content, a UI payload and
// optionally a note and session state; or Failed, with a correction for the
// model. The zero Outcome is Failed.
type Outcome struct {
	ok      bool
	content []Block
	message string
	ui      any
	state   map[string]string
}

// Ok is a successful outcome carrying the model content.
func Ok(content ...Block) Outcome {
	return Outcome{ok: true, content: content}
}

// Failed is a failed outcome. The message is addressed to the model, in the
// imperative: what to do next. Never pass it a raw error.
//
//	plugin.Failed("`pattern` must not be empty. To list files, use Bash `ls`.")
func Failed(message string) Outcome {
	return Outcome{message: message}
}

// WithNote adds a note the model sees after the content of an Ok outcome,
// such as "(exit status 1: no match)". Unlike the content, a note is never
// spilled to a file. On a Failed outcome it replaces the message.
func (o Outcome) WithNote(note string) Outcome {
	o.message = note
	return o
}

// WithUI attaches structured data for a UI. It must marshal to JSON; it is
// data, not pre-rendered text.
func (o Outcome) WithUI(payload any) Outcome {
	o.ui = payload
	return o
}

// WithState records session state for the next call of any tool of this
// plugin, such as the directory a shell ended in. Plugins keep no state
// between calls; the host does. An empty value deletes the key.
func (o Outcome) WithState(key, value string) Outcome {
	state := make(map[string]string, len(o.state)+1)
	for k, v := range o.state {
		state[k] = v
	}
	state[key] = value
	o.state = state
	return o
}

// IsOk reports whether the outcome is Ok.
func (o Outcome) IsOk() bool { return o.ok }

// Content is the model content of an Ok outcome.
func (o Outcome) Content() []Block { return o.content }

// Message is the Failed message, or the Ok note.
func (o Outcome) Message() string { return o.message }

// UI is the UI payload.
func (o Outcome) UI() any { return o.ui }

// State is the session state the outcome records.
func (o Outcome) State() map[string]string { return o.state }

// Block is one block of model content: text, or an image.
type Block struct {
	text      string
	mediaType string
	data      []byte
}

// Text is a text block.
func Text(s string) Block { return Block{text: s} }

// Image is an image block: mediaType is image/png, image/jpeg, image/gif or
// image/webp, and data the raw bytes. Hosts encode it for the model's API.
func Image(mediaType string, data []byte) Block {
	return Block{mediaType: mediaType, data: data}
}

// IsImage reports whether the block is an image.
func (b Block) IsImage() bool { return b.mediaType != "" }

// Text is the text of a text block.
func (b Block) Text() string { return b.text }

// MediaType is the media type of an image block.
func (b Block) MediaType() string { return b.mediaType }

// Data is the raw bytes of an image block.
func (b Block) Data() []byte { return b.data }
