#!/usr/bin/env bash
# What the tree guard adds to one hook run: `sh -c true` alone against the
# same under the guard, riot re-executed as RIOT_PROC_GUARD=tree, interleaved
# in one hyperfine run, three times. fd 3 is the guard's lifeline: a FIFO
# opened read-write, which never reaches EOF.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/riot" ./cmd/riot
mkfifo "$tmp/lifeline"
for _ in 1 2 3; do
	hyperfine -w 5 -r 40 \
		"sh -c true 3<>$tmp/lifeline" \
		"RIOT_PROC_GUARD=tree $tmp/riot /bin/sh sh -c true 3<>$tmp/lifeline"
done
