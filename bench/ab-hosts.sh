# Sourced by the A/B session host benchmarks (bench/*-ab.sh), from the
# repository's root: ab_hosts BASE builds riot and its plugins from revision
# BASE into $B/old and from this tree into $B/new, makes a private HOME and
# state dir, a workspace $B/ws (with a.txt of 200 lines and an empty sub/),
# the three-call turn of bench/session-host.sh as $B/three.json, then starts
# a session host of each build (sessions O and N) in $B/ws, the working
# directory it leaves ($ROOT is the repository's), and stops them and
# removes $B on exit.
ab_hosts() {
	ROOT=$PWD
	B=$(mktemp -d)
	mkdir -p "$B/src" "$B/old" "$B/new"
	git archive "$1" | tar -x -C "$B/src"
	make -s -C "$B/src" build plugins BIN="$B/old" >/dev/null
	make -s build plugins BIN="$B/new" >/dev/null
	export HOME="$B/home" XDG_STATE_HOME="$B/state" XDG_CONFIG_HOME="$B/home/.config" XDG_DATA_HOME="$B/home/.local/share"
	mkdir -p "$B/ws/sub" "$HOME"
	seq 1 200 >"$B/ws/a.txt"
	cat >"$B/three.json" <<JSON
[{"type":"tool_use","id":"r","name":"Read","input":{"file_path":"$B/ws/a.txt"}},
 {"type":"tool_use","id":"g","name":"Grep","input":{"pattern":"17"}},
 {"type":"tool_use","id":"b","name":"Bash","input":{"command":"ls"}}]
JSON
	trap ab_cleanup EXIT
	cd "$B/ws"
	"$B/old/riot" serve --session O
	"$B/new/riot" serve --session N
}

ab_cleanup() {
	"$B/old/riot" serve --stop --session O >/dev/null 2>&1 || true
	"$B/new/riot" serve --stop --session N >/dev/null 2>&1 || true
	rm -rf "$B"
}
