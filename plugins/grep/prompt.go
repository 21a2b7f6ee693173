package grep

// prompt is the Grep tool's description in tools[].
const prompt = `Searches file contents with a regular expression, with ripgrep's rules and speed (built in; no external program).

Usage:
- ALWAYS use Grep to search file contents. NEVER run grep or rg through Bash: Grep is faster, respects the permission rules, and its output is shaped for you.
- The pattern is Go RE2 syntax: "log.*Error", "func\s+\w+", "(?i)timeout". There is no lookahead, lookbehind or backreference. Escape literal braces and parentheses: "interface\{\}", "foo\(".
- Choose files with glob ("*.go", "**/*.{ts,tsx}", "!*_test.go" to exclude) or type ("go", "py", "js", "ts", "rust", "java", "md", ...); type is faster for standard languages.
- output_mode: "files_with_matches" (the default) lists matching files, most recently modified first; "content" shows matching lines as path:line:text, with -A, -B and -C for context and -n for line numbers (on by default); "count" shows path:N per file.
- -i ignores case. multiline: true lets . match newlines and a pattern span lines ("struct \{[\s\S]*?Name"); it is slower.
- What is searched is what rg searches: files listed in .gitignore, .ignore and .git/info/exclude (and the global git excludes file) are skipped inside a git repository, and so are hidden files and directories, .git, binary files and symlinks. To search a file anyway, pass its path as path.
- Results are capped at 250 entries (files, or lines in content mode) unless head_limit says otherwise (0 for no cap); the result says when it was cut and how many there were. Page with offset. Content lines longer than 500 characters are cut.
- A search stops after 30 seconds and returns what it found, marked incomplete.
- Start broad with files_with_matches, then read the files or narrow with content mode. For an open-ended search that needs several rounds, plan the rounds rather than repeating one search.

NEVER:
- run grep, rg, ag or find ... -exec grep through Bash to search contents;
- use a glob syntax as the pattern ("*.go" is not a regular expression; use glob for file names);
- rely on a result marked incomplete or cut as if it were all of it.`

// globPrompt is the Glob tool's usage text.
const globPrompt = `Finds files by path pattern, in any size of tree, and lists them newest first (most recently modified at the top).

Usage:
- ` + "`pattern`" + ` is a glob matched against paths relative to ` + "`path`" + ` (the working directory by default): ` + "`**`" + ` is any number of directories, ` + "`*`" + ` and ` + "`?`" + ` stay within one, ` + "`{ts,tsx}`" + ` is either, ` + "`[abc]`" + ` a class. A pattern without a slash matches file names at any depth: ` + "`*.go`" + ` is every Go file. Examples: ` + "`**/*.go`, `src/**/*.{ts,tsx}`, `cmd/*/main.go`" + `.
- Glob skips what Grep skips: files ignored by .gitignore, .ignore and .rgignore, hidden files and directories, and .git. To look at an ignored file, pass its path to Read.
- At most 100 paths are listed; when more match, the result says how many more. Narrow the pattern or the path then.
- Files the permission rules deny you reading are left out, and the result says how many.
- Glob lists files only, never directories. Listings are independent and run in parallel: ask for several patterns in one turn.

How Glob divides the work with the other tools:
- Glob finds files by name or path. Grep finds files by what they contain. Read shows a file once you know its path.
- Bash ` + "`ls`" + ` shows one directory's entries, directories included.

NEVER:
- NEVER use Bash ` + "`find`" + ` or ` + "`ls -R`" + ` to find files by name: use Glob, which respects the ignore files and the permission rules, and bounds its output.
- NEVER list a whole large tree with ` + "`**/*`" + ` to look for something you can name: put the name or extension in the pattern.
`
