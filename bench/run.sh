#!/usr/bin/env bash
# Whole-command benchmarks for BENCHMARKS.md, with hyperfine (Debian's
# package). Run from the repository root on a quiet machine:
#
#   bench/run.sh [section...]    # sections: version tools tools20 grep bash stream egress pods
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
for d in plugins/*/cmd/riot-tool-*; do p=${d##*/riot-tool-}
	build -o "$work/riot-tool-$p" "./plugins/$p/cmd/riot-tool-$p"
done
build -o "$work/plugins/riot-tool-testkit" ./internal/testplugins/testkit
riot="$work/riot"
# As `go install` gives it: riot alone, serving each builtin by
# re-executing itself as `riot __plugin NAME`.
mkdir -p "$work/alone"
cp "$riot" "$work/alone/riot"
alone="$work/alone/riot"
repo=$PWD
# A session's /tmp that outlives its run (a killed one's) goes with $work.
export XDG_STATE_HOME="$work/state" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" TMPDIR="$work/tmp"
mkdir -p "$TMPDIR"
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
[ ${#sections[@]} -gt 0 ] || sections=(version tools grep bash stream)

# ratios NAME A B: hyperfine A and B in one invocation, three times, and
# each time the ratios of A to B: of the medians, of the fastest runs, and
# of the CPU time (user + system), which a loaded machine's queueing
# inflates least; then the spread of each over the three.
ratios() {
	local name=$1 a=$2 b=$3 i
	for i in 1 2 3; do
		hyperfine -N --warmup "${WARMUP:-5}" --runs "${RUNS:-40}" --export-json "$work/h.json" -n A "$a" -n B "$b" >/dev/null
		python3 - "$work/h.json" <<-'PY'
			import json, sys
			a, b = json.load(open(sys.argv[1]))["results"]
			cpu = lambda r: r["user"] + r["system"]
			print("median %.2f / %.2f ms = %.2fx   min %.2f / %.2f ms = %.2fx   cpu %.2f / %.2f ms = %.2fx" % (
			    a["median"]*1e3, b["median"]*1e3, a["median"]/b["median"],
			    a["min"]*1e3, b["min"]*1e3, a["min"]/b["min"],
			    cpu(a)*1e3, cpu(b)*1e3, cpu(a)/cpu(b)))
		PY
	done | tee "$work/r.txt" | sed "s|^|$name: |"
	awk -v n="$name" '{ for (k = 0; k < 3; k++) { r = $(7 + 7*k) + 0
			if (NR == 1 || r < lo[k]) lo[k] = r; if (NR == 1 || r > hi[k]) hi[k] = r } }
		END { printf "%s: over three runs, median %.2fx-%.2fx, min %.2fx-%.2fx, cpu %.2fx-%.2fx\n", n, lo[0], hi[0], lo[1], hi[1], lo[2], hi[2] }' "$work/r.txt"
}

for s in "${sections[@]}"; do
case $s in
version)
	echo "## riot version vs an empty static Go program; riot tools --json (cached manifests) vs cat go.mod"
	mkdir -p "$work/empty"
	printf 'package main\n\nfunc main() {}\n' > "$work/empty/main.go"
	(cd "$work/empty" && go mod init empty >/dev/null 2>&1 && CGO_ENABLED=0 go build -o "$work/empty-go" .)
	for layout in make alone; do
		r=$riot
		[ $layout = alone ] && r=$alone
		"$r" tools --json >/dev/null
		ratios "$layout: riot version / empty Go program" "$r version" "$work/empty-go"
		ratios "$layout: riot tools --json, cached manifests / cat go.mod" "$r tools --json" "cat $repo/go.mod"
	done
	echo "## where riot version's time goes: package init functions before main (GODEBUG=inittrace=1, median of 15)"
	for i in $(seq 15); do GODEBUG=inittrace=1 "$riot" version 2>&1 >/dev/null; done | python3 -c '
import sys, statistics, collections
t = collections.defaultdict(list); mem = {}
for l in sys.stdin:
    f = l.split()
    if f[:1] != ["init"]: continue
    t[f[1]].append(float(f[4])); mem[f[1]] = (int(f[7]), int(f[9]))
rows = sorted(((statistics.median(v), k) for k, v in t.items()), reverse=True)
total = sum(r[0] for r in rows)
print("%d packages, %.2f ms in all" % (len(rows), total))
for ms, k in rows[:8]:
    print("  %6.3f ms %5.1f%%  %8d B %6d allocs  %s" % (ms, 100*ms/total, mem[k][0], mem[k][1], k))
riot = sum(ms for ms, k in rows if k.startswith("github.com/riot-tools/"))
print("  riot'"'"'s own packages: %.3f ms" % riot)'
	# The floors, each an empty main that links only some of riot's
	# packages, so it runs their init functions and nothing else:
	#   all:  riot's link set (its own packages too);
	#   libs: the third-party libraries riot links, none of its own;
	#   core: the four the architecture requires of any riot binary:
	#         go-plugin and gRPC to host plugins, protobuf for the wire,
	#         the MCP SDK for `riot mcp` and MCP servers' tools.
	# A bar below the core floor's ratio cannot be met by a riot that
	# links them (BENCHMARKS.md, "The floor").
	(cd "$repo" && go list -deps -f '{{.ImportPath}}{{range .Deps}} {{.}}{{end}}' ./cmd/riot) > "$work/deps.txt"
	for floor in all libs core; do
		mkdir -p "$work/$floor"
		if [ $floor = core ]; then
			printf 'import _ "%s"\n' github.com/hashicorp/go-plugin google.golang.org/grpc \
				google.golang.org/protobuf/proto github.com/modelcontextprotocol/go-sdk/mcp > "$work/$floor/imports"
		else
			awk -v f=$floor '$1 !~ /(^|\/)internal(\/|$)|^vendor\/|\/cmd\/riot$/ && $1 ~ /\./ &&
				!(f == "libs" && $1 ~ /^github.com\/riot-tools\//) { printf "import _ \"%s\"\n", $1 }' "$work/deps.txt" > "$work/$floor/imports"
		fi
		{ printf 'package main\n\n'; cat "$work/$floor/imports"; printf '\nfunc main() {}\n'; } > "$work/$floor/main.go"
		printf '{"Replace":{"%s/cmd/riot-floor-%s/main.go":"%s/%s/main.go"}}' "$repo" $floor "$work" $floor > "$work/$floor/overlay.json"
		(cd "$repo" && CGO_ENABLED=0 go build -overlay "$work/$floor/overlay.json" -o "$work/floor-$floor" ./cmd/riot-floor-$floor)
	done
	ratios "riot version / riot's link set with an empty main" "$riot version" "$work/floor-all"
	ratios "the libraries riot links, with an empty main / empty Go program" "$work/floor-libs" "$work/empty-go"
	ratios "go-plugin, gRPC, protobuf and the MCP SDK, with an empty main / empty Go program" "$work/floor-core" "$work/empty-go"
	ratios "go-plugin, gRPC, protobuf and the MCP SDK, with an empty main / cat go.mod" "$work/floor-core" "cat $repo/go.mod"
	;;
tools)
	echo "## riot tools --json: cached manifests, and cold (no cache, every plugin started)"
	for layout in make alone; do
		r=$riot
		[ $layout = alone ] && r=$alone
		"$r" tools --json >/dev/null
		hyperfine -N --warmup 5 --runs 50 -n "$layout: cached" "$r tools --json"
		hyperfine -N --warmup 2 --runs 20 -n "$layout: cold" --prepare "rm -rf $XDG_STATE_HOME/riot/cache" "$r tools --json"
	done
	;;
tools20)
	# Issue 33: riot tools --json with 20 MCP servers whose tool lists are
	# cached (A) against none (B), at most 1.2x. Each server is the
	# mcpserve fixture (4 tools) behind a script that counts its starts:
	# a cached listing must start none.
	(cd "$repo" && build -o "$work/mcpserve" ./internal/testplugins/mcpserve)
	printf '#!/bin/sh\necho >> %s/starts\nexec %s/mcpserve ok\n' "$work" "$work" > "$work/mcpserve.sh"
	chmod +x "$work/mcpserve.sh"
	: > "$work/mcp0.toml"
	for i in $(seq -w 1 20); do printf '[mcp_servers.s%s]\ncommand = "%s/mcpserve.sh"\n\n' "$i" "$work"; done > "$work/mcp20.toml"
	"$riot" --config "$work/mcp20.toml" tools --json > /dev/null # fills the cache: starts the 20
	: > "$work/starts"
	echo "## riot tools --json: 20 MCP servers, cached (A) vs none (B); $("$riot" --config "$work/mcp20.toml" tools --json | grep -c '^    "name"') tools vs $("$riot" --config "$work/mcp0.toml" tools --json | grep -c '^    "name"')"
	ratios "tools20" "$riot --config $work/mcp20.toml tools --json" "$riot --config $work/mcp0.toml tools --json"
	echo "tools20: MCP servers started by the cached listings: $(wc -l < "$work/starts")"
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
				-n "riot alone Grep $p" "$alone call Grep '$json' --add-dir $src" \
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
	hyperfine --warmup 1 --runs 10 --prepare "$clean" \
		-n "riot call Bash" "$riot call Bash '{\"command\":\"$cmd\"}' --mode bypassPermissions --json > /dev/null" \
		-n "riot alone call Bash" "$alone call Bash '{\"command\":\"$cmd\"}' --mode bypassPermissions --json > /dev/null" \
		-n "bash to a file" "bash -c '$cmd > $work/out'"
	;;
egress)
	# A download through riot's egress proxy ([sandbox.network] mode =
	# "proxy") against the same command with the host's network, from a
	# server on this machine's own non-loopback address (the sandbox's
	# proxy variables exempt loopback, and the proxy refuses private
	# addresses unless allow_private and a rule name them).
	ip=$(hostname -I | awk '{print $1}')
	mkdir -p "$work/www" && truncate -s 1G "$work/www/1g" && echo x > "$work/www/small"
	python3 -m http.server --bind "$ip" 18080 --directory "$work/www" >/dev/null 2>&1 &
	srv=$!
	trap 'kill $srv 2>/dev/null; rm -rf "$work"' EXIT
	until curl -s -o /dev/null "http://$ip:18080/small"; do :; done
	printf '[sandbox]\nmode = "required"\n\n[sandbox.network]\nmode = "host"\n' > "$work/host.toml"
	printf '[sandbox]\nmode = "required"\n\n[sandbox.network]\nmode = "proxy"\nallow_private = true\nallowed_domains = ["%s"]\n' "$ip" > "$work/proxy.toml"
	for f in 1g small; do
		get="'{\"command\":\"curl -sS --fail -o /dev/null http://$ip:18080/$f\"}'"
		echo "## $f: riot call Bash curl through the proxy (A) vs the host's network (B)"
		ratios "egress $f" "$riot --config $work/proxy.toml call Bash $get --mode bypassPermissions" \
			"$riot --config $work/host.toml call Bash $get --mode bypassPermissions"
	done
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
pods)
	# A new session pod's time from `podman kube play` of pod.yaml to its
	# first tool result, against `podman run` of an empty static
	# container (POD_RUNS of each, 20 by default); and the memory of idle
	# session pods, one and ten (deploy/kubernetes/bench_test.go). On the
	# image RIOT_TEST_IMAGE names, or one `make image` builds; as root, to
	# read the pods' /proc.
	echo "## session pods: kube play to the first tool result vs podman run of an empty container; idle pods' memory"
	image=${RIOT_TEST_IMAGE:-localhost/riot:bench}
	[ -n "${RIOT_TEST_IMAGE:-}" ] || (cd "$repo" && make image IMAGE="$image" >/dev/null)
	(cd "$repo" && CONTAINERS_CONF="$repo/deploy/podman/containers.conf" RIOT_TEST_IMAGE="$image" RIOT_BENCH_PODS="${POD_RUNS:-20}" \
		go test -count=1 -timeout 30m -run '^TestBenchPod' -v ./deploy/kubernetes/) | grep -vE '^(=== RUN|--- PASS|PASS$|ok )'
	;;
*) echo "unknown section $s"; exit 2 ;;
esac
done
