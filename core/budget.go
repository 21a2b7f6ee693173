package core

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/riot-tools/riot/internal/atomicfile"
	"github.com/riot-tools/riot/internal/textcount"
	"github.com/riot-tools/riot/shared"
)

const (
	// previewHead and previewTail are the characters of a spilled output
	// the model sees: about 2,000 in all, the start and the end, where
	// errors usually are.
	previewHead = 1500
	previewTail = 500
	// unlimitedCap is the most text an Unlimited tool may return. It is no
	// budget, since the content is cut and not spilled (spilling a
	// read-like tool's result makes the model loop); it only bounds the
	// host's memory against a broken plugin.
	unlimitedCap = 32 << 20
	// imageCap bounds the image bytes of one result.
	imageCap = 32 << 20
	// keepBytes is how much of a spilled output's start and end is kept
	// in memory for the preview.
	keepBytes = 4 * (previewHead + 64)
)

// collector assembles one call's stream. Text is counted as it arrives and
// kept in memory up to the tool's budget; past it, everything so far and
// everything after goes to the spill file, byte for byte, so memory stays
// bounded whatever the tool sends.
type collector struct {
	budget    int64 // characters; < 0 means unlimited
	spillPath string
	store     *resultStore

	text   bytes.Buffer // the text so far, until spilled
	chars  int64
	lines  int64
	nbytes int64
	lastNL bool
	cut    bool // an unlimited tool's text passed unlimitedCap

	file *atomicfile.Scratch // written at scratchPath, renamed to spillPath at finish
	w    *bufio.Writer
	at   *offsetWriter // w's file position
	tail []byte        // the last keepBytes bytes, once spilled
	head []byte        // the first keepBytes bytes, once spilled
	err  error         // a spill write error
	done bool          // the spill file is committed or discarded
	// lost: the spill file could not be created, so only the head and
	// tail are kept, and the rest of the text is dropped as it arrives:
	// the budget holds whether or not the file can be written.
	lost bool

	images     []Block
	imageBytes int
	curImage   int // index+1 of the image block being filled; 0 if none
	curBlock   uint32
	haveBlock  bool

	final *shared.Final
	// pending is the start of a character the last text chunk of the
	// current block ended inside.
	pending []byte

	// offered: the plugin was told it may write text to the scratch file
	// (CallContext.spill_file). readBuf holds what is read back of it.
	offered  bool
	readBuf  []byte
	fromFile int64 // text bytes the plugin wrote to the file itself
	reread   int64 // bytes of the file read back: all of an uncounted stretch, the preview's of a counted one
}

func newCollector(budget int64, spillPath string, store *resultStore) *collector {
	return &collector{budget: budget, spillPath: spillPath, store: store}
}

// add takes one event of the stream; an event that breaks the protocol is
// a *malformedError, which ends the stream.
func (c *collector) add(ev shared.CallEvent) error {
	switch {
	case ev.Chunk != nil:
		return c.chunk(ev.Chunk)
	case ev.Final != nil:
		if err := c.endBlock(); err != nil {
			return err
		}
		c.final = ev.Final
		return nil
	default:
		return &malformedError{Why: "an event of no known type"}
	}
}

func (c *collector) chunk(ch *shared.Chunk) error {
	newBlock := !c.haveBlock || ch.Block != c.curBlock
	if newBlock {
		if err := c.endBlock(); err != nil {
			return err
		}
	}
	c.haveBlock, c.curBlock = true, ch.Block
	switch ch.Kind {
	case shared.BlockImage:
		if announces(ch) {
			return &malformedError{Why: "an image announced in the spill file, which holds text only"}
		}
		c.image(newBlock, ch)
		return nil
	case shared.BlockText:
	default:
		return &malformedError{Why: "a content chunk of unknown kind"}
	}
	c.curImage = 0
	if announces(ch) {
		return c.extent(ch)
	}
	data := ch.Data
	if len(c.pending) > 0 {
		data = append(c.pending, data...)
		c.pending = nil
	}
	valid := validUTF8Prefix(data)
	if valid < len(data) {
		rest := data[valid:]
		if len(rest) >= utf8.UTFMax || utf8.FullRune(rest) {
			return notUTF8(c.nbytes + int64(valid))
		}
		// A character cut between chunks: its start waits for the rest.
		c.pending = append([]byte(nil), rest...)
		data = data[:valid]
	}
	c.writeText(data, false)
	return nil
}

// endBlock checks that the text block just ended did not end inside a
// character.
func (c *collector) endBlock() error {
	if len(c.pending) > 0 {
		return notUTF8(c.nbytes)
	}
	return nil
}

// validUTF8Prefix is the length of p's longest valid UTF-8 prefix.
func validUTF8Prefix(p []byte) int {
	if utf8.Valid(p) {
		return len(p)
	}
	i := 0
	for i < len(p) {
		if p[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return i
}

func (c *collector) image(newBlock bool, ch *shared.Chunk) {
	if c.imageBytes+len(ch.Data) > imageCap {
		c.cut = true
		return
	}
	c.imageBytes += len(ch.Data)
	if newBlock || c.curImage == 0 {
		c.images = append(c.images, Block{Type: "image", MediaType: ch.MediaType})
		c.curImage = len(c.images)
	}
	img := &c.images[c.curImage-1]
	img.Data = append(img.Data, ch.Data...)
}

// writeText accounts for text; inFile says it is in the scratch file
// already, at offset nbytes, written by the plugin.
func (c *collector) writeText(p []byte, inFile bool) {
	if len(p) == 0 {
		return
	}
	c.nbytes += int64(len(p))
	c.lines += textcount.Newlines(p)
	c.lastNL = p[len(p)-1] == '\n'
	c.chars += textcount.Chars(p)
	switch {
	case c.file != nil || c.lost:
		c.toFile(p, inFile)
	case c.budget < 0:
		if c.text.Len()+len(p) > unlimitedCap {
			p = p[:max(0, unlimitedCap-c.text.Len())]
			c.cut = true
		}
		c.text.Write(p)
	default:
		c.text.Write(p)
		if c.chars > c.budget {
			c.spill()
		}
	}
}

// spill moves the text so far to the spill file; the rest follows it.
func (c *collector) spill() {
	f, err := c.store.create(scratchPath(c.spillPath), c.spillPath)
	if err != nil {
		// Cut to the preview all the same: without the file, the text
		// past the budget has nowhere to go but the context.
		c.err, c.lost = err, true
	} else {
		c.at = &offsetWriter{f: f}
		c.file, c.w = f, bufio.NewWriterSize(c.at, 256<<10)
	}
	// toFile keeps the head: setting it here too doubled the head of a
	// text spilled under keepBytes, as a small budget spills it.
	c.toFile(c.text.Bytes(), false)
	c.text = bytes.Buffer{}
}

func (c *collector) toFile(p []byte, inFile bool) {
	if len(c.head) < keepBytes {
		c.head = append(c.head, p[:min(len(p), keepBytes-len(c.head))]...)
	}
	if len(p) >= keepBytes {
		c.tail = append(c.tail[:0], p[len(p)-keepBytes:]...)
	} else {
		c.tail = append(c.tail, p...)
		if over := len(c.tail) - keepBytes; over > 0 {
			c.tail = append(c.tail[:0], c.tail[over:]...)
		}
	}
	switch {
	case inFile && c.at != nil:
		c.pluginWrote()
	case c.err == nil && c.w != nil:
		_, c.err = c.w.Write(p)
	}
}

// pluginWrote: the plugin wrote the spill file up to nbytes; the host's
// own writes, if any, go on after it.
func (c *collector) pluginWrote() {
	if c.err == nil {
		c.err = c.w.Flush()
	}
	c.at.off = c.nbytes
}

// finish puts the spill file, if any, at its path whole, or removes it if
// it could not be written whole.
func (c *collector) finish() {
	if c.file == nil || c.done {
		return
	}
	c.done = true
	if err := c.w.Flush(); err != nil && c.err == nil {
		c.err = err
	}
	if c.err == nil {
		// Anything the plugin wrote past what it announced is cut.
		c.err = c.file.Commit(c.nbytes)
	}
	c.file.Cleanup()
}

// discard drops the spill file, for a result that is refused.
func (c *collector) discard() {
	if c.file == nil || c.done {
		return
	}
	c.done = true
	c.file.Cleanup()
}

// spilled reports whether the text went to the file.
func (c *collector) spilled() bool { return c.file != nil }

// body is the text the model sees in place of the content: all of it, or
// a preview and where the rest is.
func (c *collector) body() string {
	if !c.spilled() && !c.lost {
		s := c.text.String()
		if c.cut {
			s += fmt.Sprintf("\n[Output cut at %s: this tool returned more than riot keeps in memory. Ask for less, such as a smaller range.]", sizeText(int64(c.text.Len())))
		}
		return s
	}
	if c.err != nil {
		return preview(string(c.head), string(c.tail), c.chars, c.lines, c.lastNL) +
			fmt.Sprintf("\n[Output too large for the context: %s characters in %s lines. The full output could not be saved to a file (%s), so only this preview exists. Re-run with output narrowed, for example piped through head, tail or grep.]", commas(c.chars), commas(c.lineCount()), unsavedWhy(c.err))
	}
	return spillNotice(string(c.head), string(c.tail), c.chars, c.lineCount(), c.lastNL, c.spillPath)
}

func (c *collector) lineCount() int64 {
	if c.nbytes > 0 && !c.lastNL {
		return c.lines + 1
	}
	return c.lines
}

// DefaultTurnBudgetChars is limits.turn_budget_chars when a config (a Go
// program's, a remote.Options) leaves it zero: what a turn's results hold
// together at most, as defaults.toml sets it.
const DefaultTurnBudgetChars = 200_000

// CutToTurnBudget is text cut to the preview a spill shows, with its size
// and how to see the rest, for a client that bounds a turn whose calls
// another host ran, each as a turn of its own (remote.Client): it holds no
// spill file the model could read, so the call is to be run again alone,
// when its own budget, not the turn's, applies.
func CutToTurnBudget(text string) string {
	chars := int64(utf8.RuneCountInString(text))
	lastNL := strings.HasSuffix(text, "\n")
	lines := int64(strings.Count(text, "\n"))
	if !lastNL && text != "" {
		lines++
	}
	return preview(text, text, chars, lines, lastNL) + fmt.Sprintf(
		"\n[Output cut to keep this turn within its budget (limits.turn_budget_chars): %s characters in %s lines, and the other results of the turn took the rest. Run this call again alone to see all of it, or narrow it.]",
		commas(chars), commas(lines))
}

// spillNotice is the preview of a spilled output with its size, path and
// how to read more.
func spillNotice(head, tail string, chars, lines int64, lastNL bool, path string) string {
	return preview(head, tail, chars, lines, lastNL) + fmt.Sprintf(
		"\n[Output too large for the context: %s characters in %s lines. The full output is saved at %s. Read it with Read (file_path with offset and limit), or search it with Grep on that path.]",
		commas(chars), commas(lines), path)
}

// preview cuts head and tail on line boundaries, and never inside a UTF-8
// character. When head and tail cover the whole output, it is all shown.
func preview(head, tail string, chars, lines int64, lastNL bool) string {
	h := cutHead(head, previewHead)
	t := cutTail(tail, previewTail)
	hn := int64(strings.Count(h, "\n"))
	tn := int64(strings.Count(t, "\n"))
	if !lastNL && t != "" {
		tn++
	}
	omitted := lines - hn - tn
	if omitted <= 0 || t == "" {
		return h
	}
	return fmt.Sprintf("%s… [%s lines omitted] …\n%s", h, commas(omitted), t)
}

// cutHead returns the whole lines of s within n characters; a first line
// longer than that is cut at n characters on a rune boundary.
func cutHead(s string, n int) string {
	s = validPrefix(s)
	end, count := 0, 0
	for i := range s {
		if count == n {
			end = i
			break
		}
		count++
		end = len(s)
	}
	cut := s[:end]
	if end == len(s) {
		return cut
	}
	if nl := strings.LastIndexByte(cut, '\n'); nl >= 0 {
		return cut[:nl+1]
	}
	return cut + "…\n"
}

// cutTail returns the whole lines that end s within n characters.
func cutTail(s string, n int) string {
	s = validSuffix(s)
	r := []rune(s)
	if len(r) > n {
		s = string(r[len(r)-n:])
		// Drop the partial first line.
		if nl := strings.IndexByte(s, '\n'); nl >= 0 && nl+1 < len(s) {
			s = s[nl+1:]
		}
	}
	return s
}

// validPrefix drops a character cut off at the end of s.
func validPrefix(s string) string {
	for i := 0; i < utf8.UTFMax && len(s) > 0; i++ {
		r, size := utf8.DecodeLastRuneInString(s)
		if r != utf8.RuneError || size > 1 {
			break
		}
		s = s[:len(s)-1]
	}
	return s
}

// validSuffix drops a character cut off at the start of s.
func validSuffix(s string) string {
	for i := 0; i < utf8.UTFMax && len(s) > 0; i++ {
		if utf8.RuneStart(s[0]) {
			break
		}
		s = s[1:]
	}
	return s
}

// commas formats n with thousands separators: 48,211.
func commas(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + commas(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func sizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}

// notUTF8 is the malformed output of text that breaks UTF-8 at byte at of
// the call's output, streamed or in the spill file.
func notUTF8(at int64) error {
	return &malformedError{Why: fmt.Sprintf("text that is not valid UTF-8, at byte %s of its output", commas(at))}
}
