#!/bin/sh
# A three-call turn (Read, Grep, ls) through an attached session host, against
# `riot version` and the same turn without a host, interleaved and repeated.
# Usage: B=$(mktemp -d) && make build plugins BIN=$B && sh bench/session-host.sh
# (with $B/ws/a.txt and $B/turn.json as BENCHMARKS.md's "Session host" shows).
set -e
export HOME=$B/home XDG_STATE_HOME=$B/state XDG_CONFIG_HOME=$B/home/.config
cd $B/ws
$B/riot serve --session H >/dev/null
$B/riot run --session H $B/turn.json | head -c 300
hyperfine -N -w 5 -r 40 --export-markdown $B/out.md "$B/riot version" "$B/riot run --session H $B/turn.json" "$B/riot run --session N $B/turn.json" "$B/riot version" "$B/riot run --session H $B/turn.json" "$B/riot run --session N $B/turn.json"
$B/riot serve --stop --session H
