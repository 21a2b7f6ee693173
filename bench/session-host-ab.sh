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
. bench/ab-hosts.sh
. bench/medians.sh
ab_hosts "$base"
for r in "old O" "new N"; do
	set -- $r
	out=$("$B/$1/riot" run --session "$2" "$B/three.json")
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
		-n "attached-$base" "$B/old/riot run --session O $B/three.json" \
		-n attached-this "$B/new/riot run --session N $B/three.json"
	medians "$B/run.json"
	i=$((i + 1))
done
