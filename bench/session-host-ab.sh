#!/bin/sh
# The three-call turn of bench/session-host.sh (Read, Grep, Bash ls)
# attached to a session host built from a baseline revision and to one
# built from this tree, against `riot version`, interleaved in each
# hyperfine run; the runs are repeated (3 by default).
#
#   bench/session-host-ab.sh [baseline-rev] [repeats]   # default: main, 3
set -eu
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "install hyperfine (apt-get install hyperfine)"; exit 2; }
base=${1:-main}
repeats=${2:-3}
B=$(mktemp -d)
mkdir -p "$B/src" "$B/old" "$B/new"
git archive "$base" | tar -x -C "$B/src"
make -s -C "$B/src" build plugins BIN="$B/old" >/dev/null
make -s build plugins BIN="$B/new" >/dev/null
export HOME="$B/home" XDG_STATE_HOME="$B/state" XDG_CONFIG_HOME="$B/home/.config" XDG_DATA_HOME="$B/home/.local/share"
mkdir -p "$B/ws" "$HOME"
seq 1 200 >"$B/ws/a.txt"
cat >"$B/turn.json" <<JSON
[{"type":"tool_use","id":"r","name":"Read","input":{"file_path":"$B/ws/a.txt"}},
 {"type":"tool_use","id":"g","name":"Grep","input":{"pattern":"17"}},
 {"type":"tool_use","id":"b","name":"Bash","input":{"command":"ls"}}]
JSON
cd "$B/ws"
cleanup() {
	"$B/old/riot" serve --stop --session O >/dev/null 2>&1 || true
	"$B/new/riot" serve --stop --session N >/dev/null 2>&1 || true
	rm -rf "$B"
}
trap cleanup EXIT
"$B/old/riot" serve --session O
"$B/new/riot" serve --session N
for r in "old O" "new N"; do
	set -- $r
	out=$("$B/$1/riot" run --session "$2" "$B/turn.json")
	n=$(printf '%s' "$out" | grep -c '"tool_use_id"')
	e=$(printf '%s' "$out" | grep -c '"is_error": true' || true)
	[ "$n" = 3 ] && [ "$e" = 0 ] || { echo "the turn ($1) did not run whole: $out"; exit 1; }
done
sleep 3 # see bench/session-host.sh: a config changed in the last 2 s is reread
i=1
while [ "$i" -le "$repeats" ]; do
	echo "== run $i of $repeats"
	hyperfine -N -w 5 -r 30 --style basic --export-json "$B/run.json" \
		-n version "$B/new/riot version" \
		-n "attached-$base" "$B/old/riot run --session O $B/turn.json" \
		-n attached-this "$B/new/riot run --session N $B/turn.json"
	if command -v jq >/dev/null; then
		jq -r '.results as $r | ($r[0].median) as $v | ($r[0].min) as $vm
			| $r[] | "\(.command): median \(.median * 1e4 | round / 10) ms (\(.median / $v * 100 | round / 100)x version), min \(.min * 1e4 | round / 10) ms (\(.min / $vm * 100 | round / 100)x)"' "$B/run.json"
	fi
	i=$((i + 1))
done
