#!/bin/sh
# One-call Bash turns (`true`, `ls`, `echo hi; cd sub`) and the three-call
# turn of bench/session-host.sh, each attached to a session host built from
# a baseline revision and to one built from this tree, with `riot version`,
# run in rotation by bench/internal/rotate (one run of each command per
# round, so that every command meets the same load); the measurement is
# repeated (3 times by default). The sandbox is on (the default profile),
# as for an agent.
#
#   bench/bash-call-ab.sh [baseline-rev] [repeats]   # default: main, 3
#   RUNS=100 bench/bash-call-ab.sh main 3            # rounds per run (50)
set -eu
cd "$(dirname "$0")/.."
base=${1:-main}
repeats=${2:-3}
. bench/ab-hosts.sh
ab_hosts "$base"
(cd "$ROOT" && go build -o "$B/rotate" ./bench/internal/rotate)
bash_turn() {
	printf '[{"type":"tool_use","id":"b","name":"Bash","input":{"command":"%s"}}]\n' "$2" >"$B/$1.json"
}
bash_turn true true
bash_turn ls ls
bash_turn cd 'echo hi; cd sub'
# Every turn must run whole on both builds, without an error.
for r in "old O" "new N"; do
	set -- $r
	for t in true ls cd three; do
		out=$("$B/$1/riot" run --session "$2" "$B/$t.json")
		e=$(printf '%s' "$out" | grep -c '"is_error": true' || true)
		[ "$e" = 0 ] || { echo "the $t turn ($1) failed: $out"; exit 1; }
	done
done
sleep 3 # see bench/session-host.sh: a config changed in the last 2 s is reread
i=1
while [ "$i" -le "$repeats" ]; do
	echo "== run $i of $repeats"
	set -- "version=$B/new/riot version"
	for t in true ls cd three; do
		set -- "$@" "$t-$base=$B/old/riot run --session O $B/$t.json" "$t-this=$B/new/riot run --session N $B/$t.json"
	done
	"$B/rotate" -n "${RUNS:-50}" -w 3 "$@"
	i=$((i + 1))
done
