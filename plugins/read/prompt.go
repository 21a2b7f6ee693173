package read

// prompt is the Read tool's usage text: what the model reads in tools[].
const prompt = `Reads one file and returns its lines numbered like ` + "`cat -n`" + `: the line number, right-aligned, a tab, then the line. Use it whenever you need to see what a file contains.

Usage:
- ` + "`file_path`" + ` should be an absolute path. A relative path is resolved against the working directory, but an absolute one cannot be misread.
- By default Read returns up to 2000 lines from the start of the file. For a large file, pass ` + "`offset`" + ` (the line to start at, counting from 1) and ` + "`limit`" + ` (how many lines) to read only the part you need. When more lines follow, the result ends with a line such as "Showing lines 1–2000 of 48,211; continue with offset=2001".
- Lines longer than 2000 characters are cut where marked. One result holds at most 256 KiB of text; a window of very long lines stops early and says which offset to continue with.
- The line-number prefix is not part of the file. Leave it out of anything you quote, match or write back.
- Bytes that are not valid UTF-8 are shown as U+FFFD (�), and the result says so. CRLF line endings are shown without the \r, and the result says the file has them.
- An empty file is reported as empty. An ` + "`offset`" + ` past the end fails with the file's line count.
- Images (PNG, JPEG, GIF and WebP, recognised by their content, not their name) come back as images you can see, up to 3.75 MiB. Other binary files are refused with a hint.
- A missing file fails with similar names from the same directory, if there are any. Check them before guessing another path.
- Reads are independent and run in parallel: when you need several files, read them all in one turn rather than one per turn.
- When another tool's result was too large, it was saved to a file and you were told the path. Read that file with ` + "`offset`" + ` and ` + "`limit`" + `.

How Read divides the work with the other tools:
- Read shows the contents of a file whose path you know.
- Grep searches: which files mention something, and on which lines. Search with Grep first, then Read around the lines it points at with ` + "`offset`" + ` and ` + "`limit`" + `.
- Bash lists directories (` + "`ls`" + `), finds files by name (` + "`find`" + `), and runs programs, builds and tests.

NEVER:
- NEVER use Bash ` + "`cat`, `head`, `tail`, `sed -n`, `less` or `more`" + ` to read a file. Use Read: it numbers lines, bounds its output, refuses binary data, and goes through the same permission rules.
- NEVER Read a directory; it fails. List it with Bash ` + "`ls`" + `.
- NEVER re-read a file you have just read if it has not changed since; use what you already have.
- NEVER read a whole large file to find one thing in it; Grep for it, then Read around the match.
- NEVER include the line-number prefix in text you quote, search for or write back into a file.
- NEVER guess what a file contains, or claim you have seen all of it, when the result said more lines follow.
`
