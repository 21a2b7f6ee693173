#!/usr/bin/env bash
# A/B of two builds of riot on bench/run.sh's bash and stream commands: both
# builds and the anchor in one hyperfine invocation, three repeats, each run
# from an empty results directory. Build each tree first, for example:
#
#   git archive main | tar -x -C /tmp/a && (cd /tmp/a && bench/ab.sh build /tmp/bin-a)
#   bench/ab.sh build /tmp/bin-b
#   bench/ab.sh run /tmp/bin-a /tmp/bin-b bash stream
set -euo pipefail
case ${1:-} in
build)
	out=$2
	b() { CGO_ENABLED=0 go build -buildvcs=false "$@"; }
	mkdir -p "$out/plugins"
	b -o "$out/riot" ./cmd/riot
	for d in plugins/*/cmd/riot-tool-*; do p=${d##*/riot-tool-}; b -o "$out/riot-tool-$p" "./plugins/$p/cmd/riot-tool-$p"; done
	b -o "$out/plugins/riot-tool-testkit" ./internal/testplugins/testkit
	exit 0 ;;
run) a=$2 b=$3; shift 3 ;;
*) echo "usage: bench/ab.sh build DIR | run DIR_A DIR_B section..."; exit 2 ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for v in a b; do
	dir=${!v}
	ws=$work/ws-$v
	mkdir -p "$ws/.riot"
	printf 'plugin_dirs = ["%s"]\n\n[plugins.testkit]\nenabled = true\n' "$dir/plugins" > "$ws/.riot/config.toml"
	(cd "$ws" && XDG_STATE_HOME=$work/state-$v XDG_CONFIG_HOME=$work/config-$v XDG_DATA_HOME=$work/data-$v "$dir/riot" trust "$ws" > /dev/null)
done
riotv() { local dir=$1; echo "cd $work/ws-$2 && XDG_STATE_HOME=$work/state-$2 XDG_CONFIG_HOME=$work/config-$2 XDG_DATA_HOME=$work/data-$2 $dir/riot"; }
clean="rm -rf $work/state-a/riot/results $work/state-b/riot/results $work/out"
cmd='yes abcdefghijklmnopqrstuvwxyz0123456789 | head -c 500000000'
for s in "$@"; do
	for _ in 1 2 3; do
		uptime
		case $s in
		bash)
			hyperfine --warmup 1 --runs 10 --prepare "$clean" \
				-n "riot A" "$(riotv "$a" a) call Bash '{\"command\":\"$cmd\"}' --mode bypassPermissions --json > /dev/null" \
				-n "riot B" "$(riotv "$b" b) call Bash '{\"command\":\"$cmd\"}' --mode bypassPermissions --json > /dev/null" \
				-n "bash to a file" "bash -c '$cmd > $work/out'" ;;
		stream)
			[ -f "$work/1g" ] || { (yes 'the same 1 GB of text as the Stream tool sends, for cat to copy' || true) | head -c 1000000000 > "$work/1g"; }
			hyperfine --warmup 1 --runs 5 --prepare "$clean" \
				-n "riot A Stream 1 GB" "$(riotv "$a" a) call Stream '{\"bytes\":1000000000}' --json > /dev/null" \
				-n "riot B Stream 1 GB" "$(riotv "$b" b) call Stream '{\"bytes\":1000000000}' --json > /dev/null" \
				-n "cat 1 GB to a file" "cat $work/1g > $work/out" ;;
		*) echo "unknown section $s"; exit 2 ;;
		esac
	done
done
