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
"$riot" plugins | grep -E '^[a-z]|standalone:' || true

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
	# Each figure is hyperfine's interleaved ratio, three times over
	# (GREP_REPEATS), so that the spread shows.
	repeats=${GREP_REPEATS:-3}
	grepjson() { printf '{"pattern":%s,"path":"%s","head_limit":100000}' "$(printf '%s' "$1" | python3 -c 'import json,sys;print(json.dumps(sys.stdin.read()))')" "$2"; }
	echo "## Grep on $src: riot call Grep (end to end) vs rg -l vs grep -rl"
	# The last pattern has no literal worth a prefilter: the lazy DFA's
	# case, and the reverse suffix search's (issue 17).
	for p in 'func NewServer' '[A-Z][a-z]+Transport\b' '(?i)(deadline|timeout) exceeded' '\w+_\d+\('; do
		gp=$p
		gflags=-rlE
		case $p in '(?i)'*) gp=${p#(?i)}; gflags=-rliE ;; *'\d'*) gflags=-rlP ;; esac
		json=$(grepjson "$p" "$src")
		for _ in $(seq "$repeats"); do
			hyperfine -N --warmup 3 --runs 15 \
				-n "riot Grep $p" "$riot call Grep '$json' --add-dir $src" \
				-n "rg -l" "rg --no-config -l -e '$p' $src" \
				-n "grep $gflags" "grep $gflags -e '$gp' $src"
		done
	done
	echo "## Grep's growth from $src to a tree four times its size (four copies), against rg's"
	big="$work/src4"
	for i in 1 2 3 4; do mkdir -p "$big/$i" && cp -r "$src/." "$big/$i/"; done
	for p in 'func NewServer' '\w+_\d+\('; do
		small=$(grepjson "$p" "$src")
		large=$(grepjson "$p" "$big")
		for _ in $(seq "$repeats"); do
			hyperfine -N --warmup 2 --runs 10 \
				-n "riot Grep $p, 1x" "$riot call Grep '$small' --add-dir $src" \
				-n "riot Grep $p, 4x" "$riot call Grep '$large' --add-dir $big" \
				-n "rg -l $p, 1x" "rg --no-config -l -e '$p' $src" \
				-n "rg -l $p, 4x" "rg --no-config -l -e '$p' $big"
		done
	done
	rm -rf "$big"
	;;
bash)
	echo "## Bash: riot call Bash true vs bash -c true (cold, whole commands)"
	hyperfine -N --warmup 5 --runs 50 "$riot call Bash '{\"command\":\"true\"}'" "bash -c true"
	echo "## Bash: 500 MB of output through riot (spilled) vs the same pipeline to a file"
	cmd='yes abcdefghijklmnopqrstuvwxyz0123456789 | head -c 500000000'
	hyperfine --warmup 1 --runs 5 \
		-n "riot call Bash" "$riot call Bash '{\"command\":\"$cmd\"}' --mode bypassPermissions --json > /dev/null" \
		-n "bash to a file" "bash -c '$cmd > $work/out'"
	;;
stream)
	echo "## 1 GB through a spilling tool: riot's peak RSS and throughput vs cat to a file"
	(yes 'the same 1 GB of text as the Stream tool sends, for cat to copy' || true) | head -c 1000000000 > "$work/1g"
	/usr/bin/time -f "riot peak RSS: %M KB, %e s" "$riot" call Stream '{"bytes":1000000000}' --json > /dev/null
	hyperfine --warmup 1 --runs 5 \
		-n "riot call Stream 1 GB" "$riot call Stream '{\"bytes\":1000000000}' --json > /dev/null" \
		-n "cat 1 GB to a file" "cat $work/1g > $work/out"
	;;
*) echo "unknown section $s"; exit 2 ;;
esac
done
