package grep

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugins/grep/internal/search"
)

// report formats a search result for the model.
type report struct {
	in       Input
	env      *plugin.Env
	res      search.Result
	root     string
	limit    time.Duration
	timedOut bool
	// outputCap is the most content, in bytes, the search kept.
	outputCap int
	// returnCap is the most text, in bytes, one call returns: the bound
	// that holds whatever head_limit says, since Grep is Unlimited.
	returnCap int
}

// format returns the model content, and whether head_limit or offset left
// entries out. Every incomplete result says so in the text: truncated by
// head_limit, stopped by the time limit, or capped in size.
func (r *report) format() (string, bool) {
	text, truncated := r.body()
	if note := r.deniedNote(); note != "" {
		text += "\n\n" + note
	}
	return text, truncated
}

// deniedNote says how many files and directories the deny rules kept
// the search out of, or "".
func (r *report) deniedNote() string {
	files, dirs := r.res.Stats.DeniedFiles, r.res.Stats.DeniedDirs
	var what []string
	if files > 0 {
		what = append(what, commas(files)+" "+plural(files, "file", "files"))
	}
	if dirs > 0 {
		what = append(what, commas(dirs)+" "+plural(dirs, "directory", "directories"))
	}
	if len(what) == 0 {
		return ""
	}
	return fmt.Sprintf("Skipped %s that the user's Read deny rules cover: they were not opened, and nothing in them is searched or shown. Do not try to read them another way.",
		strings.Join(what, " and "))
}

// body is the result without the note on denied files.
func (r *report) body() (string, bool) {
	var b strings.Builder
	if r.timedOut {
		b.WriteString(r.timeoutNote())
		b.WriteString("\n\n")
	}
	if len(r.res.Files) == 0 {
		if r.timedOut {
			b.WriteString("No matches were found before it stopped.")
		} else {
			b.WriteString(r.noMatch())
		}
		return b.String(), false
	}
	var truncated bool
	switch r.in.mode() {
	case modeContent:
		truncated = r.content(&b)
	case modeCount:
		truncated = r.count(&b)
	default:
		truncated = r.files(&b)
	}
	return strings.TrimRight(b.String(), "\n"), truncated
}

// files lists the files with matches, newest first.
func (r *report) files(b *strings.Builder) bool {
	offset, limit := r.in.window()
	total := len(r.res.Files)
	from, to := page(offset, limit, total)
	for i, f := range r.res.Files[from:to] {
		if r.full(b, i, len(f.Path)+1) {
			return r.returnCapped(b, from, from+i, total, "matching files", "")
		}
		b.WriteString(f.Path)
		b.WriteByte('\n')
	}
	return r.footer(b, from, to, total, "matching files", "")
}

// full reports whether an entry of n bytes, the i-th shown, would take
// the text past returnCap. The first entry always fits: a page that
// shows nothing could never be paged past.
func (r *report) full(b *strings.Builder, i, n int) bool {
	return i > 0 && b.Len()+n > r.returnCap
}

// returnCapped ends a page that returnCap cut after entries [from, at):
// it says so, and gives the offset of the next page.
func (r *report) returnCapped(b *strings.Builder, from, at, total int, what, extra string) bool {
	fmt.Fprintf(b, "\nOutput stopped after %s of %s %s%s at %s, the most Grep returns at once. Pass offset: %d for the next page, or narrow the pattern or path.\n",
		shownRange(from, at), commas(total), what, extra, sizeOf(r.returnCap), at)
	return true
}

// shownRange is "250" for a window from the start, "251–500" otherwise.
func shownRange(from, to int) string {
	if from > 0 {
		return fmt.Sprintf("%s–%s", commas(from+1), commas(to))
	}
	return commas(to - from)
}

// count lists "path:N" for each file with matches, by path.
func (r *report) count(b *strings.Builder) bool {
	offset, limit := r.in.window()
	total := len(r.res.Files)
	from, to := page(offset, limit, total)
	matches := totalMatches(r.res.Files)
	extra := fmt.Sprintf(" (%s matching %s in all)", commas(matches), plural(matches, "line", "lines"))
	for i, f := range r.res.Files[from:to] {
		n := strconv.Itoa(f.Matches)
		if r.full(b, i, len(f.Path)+len(n)+2) {
			return r.returnCapped(b, from, from+i, total, "files with matches", extra)
		}
		b.WriteString(f.Path)
		b.WriteByte(':')
		b.WriteString(n)
		b.WriteByte('\n')
	}
	all := fmt.Sprintf("%s matching %s in %s %s", commas(matches), plural(matches, "line", "lines"), commas(total), plural(total, "file", "files"))
	truncated := r.footer(b, from, to, total, "files with matches", extra)
	if !truncated && from == 0 {
		b.WriteString("\n" + upperFirst(all) + ".\n")
	}
	return truncated
}

// content writes the window of output lines the input asks for. Files
// are separated by "--" when there is context, as in rg.
func (r *report) content(b *strings.Builder) bool {
	offset, limit := r.in.window()
	before, after := r.in.context()
	withContext := before > 0 || after > 0
	total, matches := 0, 0
	for i, f := range r.res.Files {
		total += f.Lines
		if withContext && i > 0 {
			total++
		}
		matches += f.Matches
	}
	from, to := page(offset, limit, total)
	what := fmt.Sprintf("matching %s", plural(matches, "line", "lines"))
	extra := fmt.Sprintf(" in %s %s", commas(len(r.res.Files)), plural(len(r.res.Files), "file", "files"))
	if withContext {
		what = "lines"
		extra = fmt.Sprintf(" (%s matching %s in %s %s, with context)", commas(matches), plural(matches, "line", "lines"), commas(len(r.res.Files)), plural(len(r.res.Files), "file", "files"))
	}
	line, capped := 0, false
files:
	for i, f := range r.res.Files {
		if line >= to {
			break
		}
		if withContext && i > 0 {
			if line >= from {
				if r.full(b, line-from, 3) {
					return r.returnCapped(b, from, line, total, what, extra)
				}
				b.WriteString("--\n")
			}
			line++
		}
		out := f.Out
		for k := 0; k < f.Lines && line < to; k++ {
			if k >= f.Kept {
				// Only the memory cap drops lines the window needs.
				capped = true
				break files
			}
			end := bytes.IndexByte(out, '\n')
			if line >= from {
				if r.full(b, line-from, end+1) {
					return r.returnCapped(b, from, line, total, what, extra)
				}
				b.Write(out[:end+1])
			}
			line++
			out = out[end+1:]
		}
	}
	if capped {
		fmt.Fprintf(b, "\nOutput stopped after %s lines: a search keeps at most %s of output counted from its first line, and the search found %s lines (%s matching). Narrow the pattern or path; offset cannot page past this.\n",
			commas(line-from), sizeOf(r.outputCap), commas(total), commas(matches))
		return true
	}
	return r.footer(b, from, to, total, what, extra)
}

// footer says what part of the result was shown, when it was not all of
// it, and reports whether it was not.
func (r *report) footer(b *strings.Builder, from, to, total int, what, extra string) bool {
	if from >= total {
		offset, _ := r.in.window()
		fmt.Fprintf(b, "No %s after offset %s: the search found %s%s.\nPass an offset below %s.\n", what, commas(offset), commas(total), extra, commas(total))
		return true
	}
	if from == 0 && to == total {
		return false
	}
	fmt.Fprintf(b, "\nShowing %s of %s %s%s", shownRange(from, to), commas(total), what, extra)
	if to < total {
		fmt.Fprintf(b, "; narrow the pattern or path, or raise head_limit (or pass offset: %d for the next page).\n", to)
	} else {
		b.WriteString(".\n")
	}
	return true
}

// page is the window [from, to) of total entries.
func page(offset, limit, total int) (int, int) {
	from := min(offset, total)
	to := total
	if limit > 0 && from+limit < total {
		to = from + limit
	}
	return from, to
}

// noMatch says exactly what was searched and what was not.
func (r *report) noMatch() string {
	s := r.res.Stats
	pattern := "/" + r.in.Pattern + "/"
	if r.in.IgnoreCase {
		pattern += "i"
	}
	if r.res.Explicit {
		if s.Binary > 0 {
			return fmt.Sprintf("No matches for %s in %s (before a NUL byte stopped the search there).", pattern, r.env.Rel(r.root))
		}
		return fmt.Sprintf("No matches for %s in %s.", pattern, r.env.Rel(r.root))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "No matches for %s in %s %s under %s", pattern, commas(s.Searched), plural(s.Searched, "file", "files"), r.dirName())
	switch {
	case r.in.Glob != "" && r.in.Type != "":
		fmt.Fprintf(&b, " (only files matching glob %s and of type %s)", r.in.Glob, r.in.Type)
	case r.in.Glob != "":
		fmt.Fprintf(&b, " (only files matching glob %s)", r.in.Glob)
	case r.in.Type != "":
		fmt.Fprintf(&b, " (only files of type %s)", r.in.Type)
	}
	if s.Binary > 0 {
		fmt.Fprintf(&b, "; %s %s skipped as binary", commas(s.Binary), plural(s.Binary, "file", "files"))
	}
	if s.Symlinks > 0 {
		fmt.Fprintf(&b, "; %s %s not followed", commas(s.Symlinks), plural(s.Symlinks, "symlink", "symlinks"))
	}
	if s.Unreadable > 0 {
		fmt.Fprintf(&b, "; %s %s could not be read", commas(s.Unreadable), plural(s.Unreadable, "entry", "entries"))
	}
	b.WriteString("; ignored and hidden files are not searched")
	if s.Ignored+s.Hidden > 0 {
		fmt.Fprintf(&b, " (%s ignored, %s hidden here; pass a file's path to search it anyway)", commas(s.Ignored), commas(s.Hidden))
	}
	b.WriteString(".")
	if r.in.Multiline && (strings.Contains(r.in.Pattern, `\b`) || strings.Contains(r.in.Pattern, `\B`)) {
		b.WriteString(" With multiline, \\b and \\B count only ASCII letters, digits and _ as word characters (ü is not one); without multiline they are Unicode-aware.")
	}
	return b.String()
}

// timeoutNote says that the result is incomplete and how far it got.
func (r *report) timeoutNote() string {
	s := r.res.Stats
	where := fmt.Sprintf("after searching %s %s under %s", commas(s.Searched), plural(s.Searched, "file", "files"), r.dirName())
	if r.res.Explicit {
		where = "part-way through " + r.env.Rel(r.root)
	}
	return fmt.Sprintf("Incomplete: the search stopped at its time limit of %s %s, so the results below are partial. Narrow the path, or filter with glob or type.",
		seconds(r.limit), where)
}

// dirName is the searched directory as the model reads it best.
func (r *report) dirName() string {
	rel := r.env.Rel(r.root)
	if rel == "." {
		return "the working directory"
	}
	return strings.TrimSuffix(rel, "/") + "/"
}

// sizeOf formats a byte count: "16 MiB", "1,000 bytes".
func sizeOf(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return commas(n>>20) + " MiB"
	}
	return commas(n) + " bytes"
}

func seconds(d time.Duration) string {
	if d >= time.Second {
		return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
	}
	return strconv.FormatInt(d.Milliseconds(), 10) + " ms"
}

// commas formats n with thousands separators: 1,342.
func commas(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + commas(-n)
	}
	var b strings.Builder
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
