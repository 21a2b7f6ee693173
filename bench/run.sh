#!/usr/bin/env bash
# Whole-command benchmarks for BENCHMARKS.md, with hyperfine (Debian's
# package). Run from the repository root on a quiet machine:
#
#   bench/run.sh [section...]    # sections: tools grep bash stream
#
# Each section prints hyperfine's table and the ratios it reports.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v hyperfine >/dev/null || { echo "install hyperfine (apt-get install hyperfine)"; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# As `make all` builds them: static, and riot with each builtin's
# standalone binary beside it, stamped with the commit, so riot serves
# builtins from those (which start faster) when the tree is clean.
# `riot plugins` says which.
build() { CGO_ENABLED=0 go build -buildvcs=auto "$@"; }
build -o "$work/riot" ./cmd/riot
for p in bash grep read diagnostics; do
	build -o "$work/riot-tool-$p" "./plugins/$p/cmd/riot-tool-$p"
done
build -o "$work/plugins/riot-tool-testkit" ./internal/testplugins/testkit
riot="$work/riot"
export XDG_STATE_HOME="$work/state" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data"
ws="$work/ws"
mkdir -p "$ws/.riot"
printf 'plugin_dirs = ["%s"]\n\n[plugins.testkit]\nenabled = true\n' "$work/plugins" > "$ws/.riot/config.toml"
cd "$ws"
# The workspace's config enables the testkit plugin, which an untrusted
# workspace may not.
"$riot" trust "$ws" > /dev/null
"$riot" plugins | grep -E '^[a-z]|standalone:' || true

# Each streaming run starts from an empty results directory and no output
# file, as the anchor does: a gigabyte left from the run before is written
# back and freed during the next one, which times the disk, not riot.
clean="rm -rf $XDG_STATE_HOME/riot/results $work/out"

# peak_rss runs riot and prints its own resident high-water mark (VmHWM),
# read from /proc while it runs: /usr/bin/time's %M is the largest of riot
# and its children, the plugin among them.
peak_rss() {
	"$riot" "$@" > /dev/null &
	local pid=$! peak=0 h
	while kill -0 "$pid" 2>/dev/null; do
		h=$(awk '/^VmHWM/{print $2}' "/proc/$pid/status" 2>/dev/null || true)
		[ -n "$h" ] && [ "$h" -gt "$peak" ] && peak=$h
		sleep 0.01
	done
	wait "$pid"
	echo "riot peak RSS (VmHWM): $((peak / 1024)) MB"
}

sections=("$@")
[ ${#sections[@]} -gt 0 ] || sections=(tools grep bash stream)

for s in "${sections[@]}"; do
case $s in
tools)
	echo "## riot tools --json: cached manifests, and cold (no cache, every plugin started)"
	"$riot" tools --json >/dev/null
	hyperfine -N --warmup 5 --runs 50 "$riot tools --json"
	hyperfine -N --warmup 2 --runs 20 --prepare "rm -rf $XDG_STATE_HOME/riot/cache" "$riot tools --json"
	;;
grep)
	src=$(go env GOROOT)/src
	echo "## Grep on $src: riot call Grep (end to end) vs rg -l vs grep -rlE"
	for p in 'func NewServer' '[A-Z][a-z]+Transport\b' '(?i)(deadline|timeout) exceeded'; do
		gp=$p
		gflags=-rlE
		case $p in '(?i)'*) gp=${p#(?i)}; gflags=-rliE ;; esac
		json=$(printf '{"pattern":%s,"path":"%s","head_limit":100000}' "$(printf '%s' "$p" | python3 -c 'import json,sys;print(json.dumps(sys.stdin.read()))')" "$src")
		hyperfine -N --warmup 3 --runs 20 \
			-n "riot Grep $p" "$riot call Grep '$json' --add-dir $src" \
			-n "rg -l" "rg --no-config -l -e '$p' $src" \
			-n "grep $gflags" "grep $gflags -e '$gp' $src"
	done
	;;
bash)
	echo "## Bash: riot call Bash true vs bash -c true (cold, whole commands)"
	hyperfine -N --warmup 5 --runs 50 "$riot call Bash '{\"command\":\"true\"}'" "bash -c true"
	echo "## Bash: 500 MB of output through riot (spilled) vs the same pipeline to a file"
	cmd='yes abcdefghijklmnopqrstuvwxyz0123456789 | head -c 500000000'
	hyperfine --warmup 1 --runs 5 --prepare "$clean" \
		-n "riot call Bash" "$riot call Bash '{\"command\":\"$cmd\"}' --mode bypassPermissions --json > /dev/null" \
		-n "bash to a file" "bash -c '$cmd > $work/out'"
	;;
stream)
	echo "## 1 GB through a spilling tool: riot's peak RSS and throughput vs cat to a file"
	(yes 'the same 1 GB of text as the Stream tool sends, for cat to copy' || true) | head -c 1000000000 > "$work/1g"
	for _ in 1 2 3; do
		$clean
		peak_rss call Stream '{"bytes":1000000000}' --json
	done
	hyperfine --warmup 1 --runs 5 --prepare "$clean" \
		-n "riot call Stream 1 GB" "$riot call Stream '{\"bytes\":1000000000}' --json > /dev/null" \
		-n "cat 1 GB to a file" "cat $work/1g > $work/out"
	;;
*) echo "unknown section $s"; exit 2 ;;
esac
done
