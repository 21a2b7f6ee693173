package edit

// editPrompt is the Edit tool's usage text: what the model reads in
// tools[].
const editPrompt = `Replaces exact text in a file: the one occurrence of ` + "`old_string`" + ` becomes ` + "`new_string`" + `, or every occurrence with ` + "`replace_all`" + `. Use it for every change to an existing file.

Usage:
- Read the file in this session before you edit it. Edit refuses a file you have not read, and a file that changed since you read it (a formatter, a command or the user wrote it): Read it again then.
- After an Edit the file counts as read as it now is: consecutive Edits of one file need no new Read. The result shows the changed lines numbered like Read's.
- ` + "`old_string`" + ` must be the file's text exactly, whitespace and indentation included, without Read's line-number prefix (the number, then a tab). Files with CRLF line endings are matched with them; you may write old_string and new_string with plain newlines.
- ` + "`old_string`" + ` must occur once. If it occurs several times, the call fails with the line numbers: add surrounding lines to make it unique, or set ` + "`replace_all`" + ` to change every occurrence (to rename a variable, say).
- If ` + "`old_string`" + ` is not found, the call fails and shows the closest lines, naming a difference of indentation or whitespace. Copy the text from there.
- The file keeps its line endings, its final newline or lack of one, and its permissions; it is replaced atomically, never left half-written.
- Edit changes UTF-8 text files only; binary files, directories and files over 16 MiB are refused.

How Edit divides the work with the other tools:
- Edit changes part of an existing file. Write creates a new file, or replaces a file whole when most of it changes.
- Read shows a file before you change it; Grep and Glob find what to change.

NEVER:
- NEVER edit a file through Bash (` + "`sed -i`, `awk`, `perl -i`, `echo >`, heredocs" + `): use Edit, which checks what you saw and goes through the same permission rules.
- NEVER include the line-number prefix from Read in old_string or new_string.
- NEVER guess at a file's content for old_string: Read it first.
- NEVER set replace_all just to get past "occurs N times" when you mean to change one place; add context instead.
`

// writePrompt is the Write tool's usage text.
const writePrompt = `Writes a file whole: creates it, with any missing parent directories, or replaces an existing file with new content.

Usage:
- To replace an existing file, Read it whole in this session first. Write refuses to overwrite a file you have not read, one you read only part of, and one that changed since you read it. A new file needs no Read.
- ` + "`content`" + ` is the complete file, exactly as it should be on disk; include the final newline if the file should end with one.
- An existing file keeps its permissions; the file is replaced atomically, never left half-written.
- After a Write the file counts as read as it now is: an Edit may follow without a new Read.

How Write divides the work with the other tools:
- Prefer Edit for changes to an existing file: it sends only the change, and cannot drop lines you did not mean to touch.
- Write is for new files, and for files whose content you replace entirely.

NEVER:
- NEVER create files through Bash (` + "`echo >`, `cat <<EOF`, `tee`" + `): use Write.
- NEVER create documentation or README files unless the user asked for them.
- NEVER write a file you have only partly read; Read it whole first, or use Edit.
`
