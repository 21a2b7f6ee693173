package read

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"

	"github.com/riot-tools/riot/plugin"
)

// sniffBytes is how much of a file decides whether it is an image, binary
// or text: a NUL in the first 8 KiB makes it binary, as for git and rg.
const sniffBytes = 8 << 10

// Call reads the file: an image becomes an image block, text becomes a
// window of numbered lines, and anything else fails with what to do
// instead.
func (Read) Call(ctx context.Context, in Input, env *plugin.Env) plugin.Outcome {
	abs := env.Abs(in.FilePath)
	shown := env.Rel(abs)
	// Outside the fence ValidateInput checked nothing, and Call runs only
	// once the chain has allowed the read; check now, still without
	// listing the directory.
	if msg := checkPath(abs, env, env.InFence(abs)); msg != "" {
		return plugin.Failed(msg)
	}
	// OpenRead checks the file it opened, not the name checked before: a
	// symlink swapped since then cannot lead outside what the chain
	// allowed. It opens non-blocking, so that a file swapped for a pipe
	// cannot block the open; the Stat below then refuses it.
	f, err := env.OpenRead(abs)
	var refused *plugin.RefusedError
	if errors.As(err, &refused) {
		return plugin.Failed(refused.Message)
	}
	if err != nil {
		return plugin.Failed(statMessage(abs, env, err, false))
	}
	defer func() { _ = f.Close() }()
	info, err := f.Stat()
	if err != nil {
		return plugin.Failed(readFailed(shown, err))
	}
	if msg := kindMessage(abs, env, info); msg != "" {
		return plugin.Failed(msg)
	}

	head := make([]byte, sniffBytes)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return plugin.Failed(readFailed(shown, err))
	}
	head = head[:n]
	ui := UI{Path: abs}
	// What Read sees is hashed as it goes, for the record Edit and Write
	// check a file against.
	seen := newSeen(info, io.MultiReader(bytes.NewReader(head), f))
	// Not info.Size(): files under /proc say 0 and have content.
	if n == 0 {
		ui.TotalLines = new(0)
		out := plugin.Ok(plugin.Text(fmt.Sprintf("%s is empty (0 bytes).", shown))).WithUI(ui)
		return seen.record(out, env, abs, true)
	}
	if kind, ok := sniffImage(head); ok {
		out := readImage(seen, info.Size(), kind, shown, ui)
		if !out.IsOk() {
			return out
		}
		return seen.record(out, env, abs, true)
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return plugin.Failed(binaryMessage(shown, head))
	}

	offset, limit := in.window()
	w, err := readWindow(ctx, seen, defaultSpec(offset, limit, info.Size()))
	if err != nil {
		if ctx.Err() != nil {
			return plugin.Failed(fmt.Sprintf("Read of %s was stopped before it finished (cancelled or out of time).\nRead a smaller window with `offset` and `limit`.", shown))
		}
		return plugin.Failed(readFailed(shown, err))
	}
	if w.pastEnd {
		// head was not empty, so the file has a line: total >= 1.
		return plugin.Failed(fmt.Sprintf("`offset` %d is past the end of %s, which has %s.\nUse an offset from 1 to %d.",
			offset, shown, plural(w.total, "line", "lines"), w.total))
	}
	ui.StartLine, ui.EndLine, ui.TruncatedLines = w.first, w.last, w.cut
	if w.totalKnown {
		ui.TotalLines = new(w.total)
	}
	out := plugin.Ok(plugin.Text(string(w.text) + footer(w))).WithUI(ui)
	return seen.record(out, env, abs, w.first == 1 && !w.more)
}

// readImage passes an image on as an image block, with a line saying what
// it is, if it is within the API's size limit.
func readImage(r io.Reader, size int64, kind imageKind, shown string, ui UI) plugin.Outcome {
	tooLarge := func(size int64) plugin.Outcome {
		return plugin.Failed(fmt.Sprintf("%s is a %s image of %s; Read passes images of up to %s.\n"+
			"Make a smaller copy with Bash (for example ImageMagick: `convert %s -resize 50%% /tmp/smaller.%s`) and Read that.",
			shown, kind.name, humanBytes(size), maxImageText, shellQuote(shown), kind.ext()))
	}
	if size > maxImageBytes {
		return tooLarge(size)
	}
	data, err := io.ReadAll(io.LimitReader(r, maxImageBytes+1))
	if err != nil {
		return plugin.Failed(readFailed(shown, err))
	}
	if len(data) > maxImageBytes {
		// It grew since it was statted.
		return tooLarge(int64(len(data)))
	}
	ui.Image = &ImageUI{MediaType: kind.mediaType, Bytes: len(data)}
	desc := fmt.Sprintf("%s image, %s", kind.name, humanBytes(int64(len(data))))
	if w, h, ok := imageSize(kind, data); ok {
		ui.Image.Width, ui.Image.Height = w, h
		desc = fmt.Sprintf("%s image, %d×%d pixels, %s", kind.name, w, h, humanBytes(int64(len(data))))
	}
	return plugin.Ok(plugin.Text(fmt.Sprintf("%s (%s):", shown, desc)), plugin.Image(kind.mediaType, data)).WithUI(ui)
}

// binaryMessage refuses a binary file, with a hint for UTF-16 text, which
// has NULs but is text.
func binaryMessage(shown string, head []byte) string {
	if bytes.HasPrefix(head, []byte{0xff, 0xfe}) || bytes.HasPrefix(head, []byte{0xfe, 0xff}) {
		return fmt.Sprintf("%s is UTF-16 text, which Read does not decode.\n"+
			"Convert a copy with Bash: `iconv -f UTF-16 -t UTF-8 %s > /tmp/utf8.txt`, then Read /tmp/utf8.txt.", shown, shellQuote(shown))
	}
	return fmt.Sprintf("%s is a binary file (it has NUL bytes in its first 8 KiB), which Read cannot show as text.\n"+
		"Do not read it as text. To inspect it, use Bash: `file %s` for its type, or `xxd %s | head -n 32` for its first bytes.",
		shown, shellQuote(shown), shellQuote(shown))
}

// readFailed explains an I/O error in the middle of a read.
func readFailed(shown string, err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return fmt.Sprintf("Could not read %s: %s.\nTry again once; if it fails again, ask the user about this file.", shown, errno.Error())
	}
	return fmt.Sprintf("Could not read %s.\nTry again once; if it fails again, ask the user about this file.", shown)
}
