#!/bin/sh
# The quick path (README, "The quick path"), rotated round by round with
# its anchors (bench/internal/rotate), in both install layouts (`make`:
# riot with its standalone plugins; `go install`: riot alone), each set
# repeated:
#   start-up: `riot version` against an empty static Go program, and
#     `riot tools --json` (from the memo) against `cat go.mod`, with the
#     full commands (RIOT_QUICK=0) beside them;
#   attached: the three-call turn of bench/session-host.sh (Read, Grep,
#     Bash ls) through a running `riot serve`, against `riot version`, the
#     full client (RIOT_QUICK=0), and the same turn without a host.
#
#   bench/quick.sh [repeats]        # default 3; ROUNDS per set (default 100)
set -eu
cd "$(dirname "$0")/.."
. bench/medians.sh
repeats=${1:-3}
rounds=${ROUNDS:-100}
B=$(mktemp -d)
repo=$PWD
make -s build plugins BIN="$B" >/dev/null
mkdir -p "$B/alone" "$B/empty"
cp "$B/riot" "$B/alone/riot"
printf 'package main\n\nfunc main() {}\n' >"$B/empty/main.go"
(cd "$B/empty" && go mod init empty >/dev/null 2>&1 && CGO_ENABLED=0 go build -o "$B/empty-go" .)
go build -o "$B/rotate" ./bench/internal/rotate
three_call_turn "$B"
cd "$B/ws"
riot="$B/riot" alone="$B/alone/riot"
# rotate's report, outside $B: a new file in riot's own directory, which
# riot searches for plugins, changes what `riot tools` lists from.
report=$(mktemp)
cleanup() {
	"$riot" serve --stop --session H >/dev/null 2>&1 || true
	"$alone" serve --stop --session A >/dev/null 2>&1 || true
	rm -rf "$B" "$report"
}
trap cleanup EXIT
"$riot" serve --session H >/dev/null
"$alone" serve --session A >/dev/null
# The memo trusts no file changed in the last 2 s (the racy window), and
# the binaries were just built: wait that out, as a user's commands
# seconds apart would, then run each command once, which stores its entry.
sleep 3
for r in "$riot" "$alone"; do
	"$r" version >/dev/null
	"$r" tools --json >/dev/null
done
for args in "$riot run --session H" "$alone run --session A" "$riot run --session N"; do
	# shellcheck disable=SC2086
	out=$($args "$B/turn.json")
	[ "$(printf '%s' "$out" | grep -c '"is_error": false')" = 3 ] || { echo "the turn ($args) did not run whole: $out"; exit 1; }
done
# ratio NAME A B FILE: A's median and fastest over B's, from rotate's lines.
ratio() {
	awk -v n="$1" -v a="$2" -v b="$3" '$1 == a { am = $3; al = $8 } $1 == b { bm = $3; bl = $8 }
		END { printf "  %-40s median %.2fx (%.2f / %.2f ms)  fastest %.2fx (%.2f / %.2f ms)\n", n, am/bm, am, bm, al/bl, al, bl }' "$4"
}
i=1
while [ "$i" -le "$repeats" ]; do
	echo "== start-up, run $i of $repeats ($rounds rounds)"
	"$B/rotate" -n "$rounds" -w 5 \
		"empty=$B/empty-go" "version=$riot version" "version-alone=$alone version" \
		"version-full=RIOT_QUICK=0 $riot version" "cat=cat $repo/go.mod" \
		"tools=$riot tools --json" "tools-alone=$alone tools --json" "tools-full=RIOT_QUICK=0 $riot tools --json" | tee "$report"
	ratio "riot version / empty Go program" version empty "$report"
	ratio "riot version (go install) / empty Go program" version-alone empty "$report"
	ratio "riot tools --json / cat go.mod" tools cat "$report"
	ratio "riot tools --json (go install) / cat go.mod" tools-alone cat "$report"
	ratio "riot version, quick / full" version version-full "$report"
	ratio "riot tools --json, quick / full" tools tools-full "$report"
	echo "== attached, run $i of $repeats ($rounds rounds)"
	"$B/rotate" -n "$rounds" -w 5 \
		"version=$riot version" "attached=$riot run --session H $B/turn.json" \
		"attached-full=RIOT_QUICK=0 $riot run --session H $B/turn.json" \
		"attached-alone=$alone run --session A $B/turn.json" "no-host=$riot run --session N $B/turn.json" | tee "$report"
	ratio "attached turn / riot version" attached version "$report"
	ratio "attached turn, quick / full client" attached attached-full "$report"
	ratio "attached turn (go install) / riot version" attached-alone version "$report"
	i=$((i + 1))
done
