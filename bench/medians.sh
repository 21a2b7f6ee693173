# Sourced by the session host benchmarks.
#
# medians FILE prints each command
# of a hyperfine --export-json FILE with its median and minimum, and their
# ratio to the first command's (riot version). Medians and minimums resist
# a busy machine better than means. Without jq it prints nothing.
medians() {
	command -v jq >/dev/null || return 0
	jq -r '.results as $r | ($r[0].median) as $v | ($r[0].min) as $vm
		| $r[] | "\(.command): median \(.median * 1e4 | round / 10) ms (\(.median / $v * 100 | round / 100)x version), min \(.min * 1e4 | round / 10) ms (\(.min / $vm * 100 | round / 100)x)"' "$1"
}

# three_call_turn DIR gives riot a home, config, state, data and temporary
# directory of its own under DIR (a session's /tmp kept after the turn, as a
# named one-shot session's is, goes with DIR), and writes the session host benchmarks' turn (Read of a
# 200-line file, Grep for 17, Bash ls) as DIR/turn.json, over the workspace
# DIR/ws.
three_call_turn() {
	export HOME="$1/home" XDG_STATE_HOME="$1/state" XDG_CONFIG_HOME="$1/home/.config" XDG_DATA_HOME="$1/home/.local/share" TMPDIR="$1/tmp"
	mkdir -p "$1/ws" "$HOME" "$TMPDIR"
	seq 1 200 >"$1/ws/a.txt"
	cat >"$1/turn.json" <<-EOF
		[{"type":"tool_use","id":"r","name":"Read","input":{"file_path":"$1/ws/a.txt"}},
		 {"type":"tool_use","id":"g","name":"Grep","input":{"pattern":"17"}},
		 {"type":"tool_use","id":"b","name":"Bash","input":{"command":"ls"}}]
	EOF
}
