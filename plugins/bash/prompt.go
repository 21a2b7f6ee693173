package bash

// bashPrompt is Bash's usage text for the model.
const bashPrompt = `Runs a shell command with bash and returns its output, stdout and stderr interleaved in the order they were written, and its exit status. Use it for terminal operations: git, builds, tests, package managers, running programs.

Choose the right tool:
- Search file contents, or find files, with Grep, not grep, rg or find.
- Read a file with Read, not cat, head or tail.
- Use Bash for what needs a shell: git, make, go test, npm, and commands that change files.

Writing the command:
- Quote every path that contains spaces or shell characters with double quotes: cd "/Users/name/My Documents", not cd /Users/name/My Documents.
- Chain dependent commands with && (mkdir -p out && cp a out/). Run independent commands as separate Bash calls in the same turn, so they can run in parallel.
- Stdin is /dev/null: a command that waits for input fails at once instead of hanging. Pass flags that make it non-interactive (-y, --no-edit, -m "message").
- Many programs buffer stdout when it is not a terminal, so their stdout and stderr may come back in a different order than on a terminal.

Working directory and environment:
- The working directory persists between calls: after cd dir, the next command runs in dir. It starts in the workspace directory; if the directory it was left in is deleted, the next command runs in the workspace directory and says so.
- The environment does not persist: variables you export, and shell options, are gone in the next call. Set what a command needs in the same call (FOO=1 make test).
- Prefer absolute paths, or paths relative to the workspace, over cd.

Timeout:
- A command is stopped after 120000 ms (2 minutes) unless you pass timeout, in milliseconds, up to 600000 (10 minutes).
- A command that times out is stopped (SIGTERM, then SIGKILL 2 s later) and the result is a failure that keeps the output so far.

Background jobs:
- For a long-running process (a dev server, a watcher, a long build), set run_in_background. The call returns at once with a job id such as bash_1 and the file its output goes to.
- Read the job's new output with BashOutput, and stop it with KillShell. You do not need to append & to the command.
- Background jobs stop when the plugin or the session ends; they do not outlive riot.
- Processes you start with & in a normal call are stopped when the command ends if they still write to its output; redirect their output, or better, use run_in_background.

Exit status:
- A non-zero exit status is a failure, and a failed Bash call cancels the calls after it in the same turn.
- One exception: exit status 1 from grep, rg, diff, cmp or test as the last command means "no match", "files differ" or "false", and is not a failure.
- Output is never cut; very long output is saved to a file and you get a preview with the path.

NEVER:
- NEVER run interactive commands that wait for a terminal: vim, nano, less, more, top, git rebase -i, git add -i, ssh without a command, python or node without a script. They fail or hang.
- NEVER use cd when an absolute path would do; NEVER cd into a directory only to run one command there when the command takes a path.
- NEVER try to get around a denied permission by running the same thing another way: another command, another tool, a script, an interpreter, or an encoded form. Ask the user instead.
- NEVER use cat, head, tail, grep, rg or find to read or search files: use Read and Grep.
- NEVER use sleep to wait for a background job; read its output with BashOutput.`

// bashOutputPrompt is BashOutput's usage text for the model.
const bashOutputPrompt = `Reads the new output of a background job that Bash started with run_in_background, and says whether the job is still running or how it ended.

- bash_id is the job id Bash returned, such as bash_1.
- Each call returns only the output written since the previous BashOutput call for that job, stdout and stderr interleaved. When there is none, it says so.
- filter is an optional regular expression (RE2 syntax): only the new lines that match it are returned. The lines that do not match are skipped for good; a later call does not return them.
- The job's whole output also stays in the file Bash named, which Read and Grep can search.
- Background jobs stop when the plugin or the session ends; an id from before that is unknown.

NEVER poll in a tight loop: do other work between reads.`

// killShellPrompt is KillShell's usage text for the model.
const killShellPrompt = `Stops a background job that Bash started with run_in_background, with its whole process group: SIGTERM, then SIGKILL 2 s later.

- shell_id is the job id Bash returned, such as bash_1.
- The output the job wrote before it stopped stays readable with BashOutput and in its output file.
- An unknown id fails with the list of running jobs.

NEVER stop a background job with kill or pkill in Bash: use KillShell, which stops its whole process group.`
