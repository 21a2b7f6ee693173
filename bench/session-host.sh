#!/bin/sh
# A three-call turn (Read of a 200-line file, Grep for 17, Bash ls) as
# `riot run --session` attached to a running `riot serve`, against
# `riot version` and the same turn with no host; also attached to a host
# whose config turns the sandbox off, which shows what Bash's sandbox adds.
# The commands are interleaved in each hyperfine run; the runs are repeated
# (3 by default), each printing its table.
#
#   bench/session-host.sh [repeats]     # from a clean clone; needs hyperfine
#   RUNS=100 bench/session-host.sh 3   # more runs per hyperfine run (default 30)
set -eu
cd "$(dirname "$0")/.."
. bench/medians.sh
command -v hyperfine >/dev/null || { echo "install hyperfine (apt-get install hyperfine)"; exit 2; }
repeats=${1:-3}
B=$(mktemp -d)
make -s build plugins BIN="$B" >/dev/null
three_call_turn "$B"
printf '[sandbox]\nmode = "off"\n' >"$B/nosandbox.toml"
cd "$B/ws"
riot="$B/riot"
cleanup() {
	"$riot" serve --stop --session H >/dev/null 2>&1 || true
	"$riot" serve --stop --session U --config "$B/nosandbox.toml" >/dev/null 2>&1 || true
	rm -rf "$B"
}
trap cleanup EXIT
"$riot" serve --session H
"$riot" serve --session U --config "$B/nosandbox.toml"
# Each turn must run whole, attached and not: three results, none an error.
for args in "--session H" "--session U --config $B/nosandbox.toml" "--session N"; do
	# shellcheck disable=SC2086
	out=$("$riot" run $args "$B/turn.json")
	n=$(printf '%s' "$out" | grep -c '"tool_use_id"')
	e=$(printf '%s' "$out" | grep -c '"is_error": true' || true)
	[ "$n" = 3 ] && [ "$e" = 0 ] || { echo "the turn ($args) did not run whole: $out"; exit 1; }
done
# A host rereads a config whose files changed in the last 2 s before each
# turn (their identity cannot yet be trusted), and the binaries were just
# built: wait them out, as an agent's turns seconds apart would.
sleep 3
i=1
while [ "$i" -le "$repeats" ]; do
	echo "== run $i of $repeats"
	hyperfine -N -w 5 -r "${RUNS:-30}" --style basic --export-json "$B/run.json" \
		-n version "$riot version" \
		-n attached "$riot run --session H $B/turn.json" \
		-n attached-nosandbox "$riot run --session U --config $B/nosandbox.toml $B/turn.json" \
		-n no-host "$riot run --session N $B/turn.json"
	medians "$B/run.json"
	i=$((i + 1))
done
