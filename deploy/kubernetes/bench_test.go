package kubernetes_test

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The pod benchmarks behind `bench/run.sh pods` (BENCHMARKS.md). They run
// only when RIOT_BENCH_PODS names the number of runs, and print their
// figures; they assert nothing about speed.
func benchRuns(t *testing.T) int {
	t.Helper()
	v := os.Getenv("RIOT_BENCH_PODS")
	if v == "" {
		t.Skip("a benchmark: set RIOT_BENCH_PODS=20 (bench/run.sh pods)")
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("RIOT_BENCH_PODS=%q is not a number of runs", v)
	}
	return n
}

// quantiles are the median and the 95th percentile (nearest rank).
func quantiles(d []time.Duration) (p50, p95 time.Duration) {
	s := slices.Clone(d)
	slices.Sort(s)
	rank := func(q float64) time.Duration {
		i := int(q*float64(len(s))+0.999999) - 1
		return s[max(0, min(i, len(s)-1))]
	}
	return rank(0.5), rank(0.95)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d.Microseconds())/1000) }

// A new session pod's time to its first tool result, from `podman kube
// play` of pod.yaml to the result of a Bash call over MCP, against the
// floor: `podman run` of an image holding only an empty static program,
// until it exits. Each pod gets a static IP on kube play's network, so the client
// dials it as soon as kube play returns, without asking podman.
func TestBenchPodFirstResult(t *testing.T) {
	runs := benchRuns(t)
	image, pm := requireImage(t)

	floor := emptyImage(t, pm)
	var floorTimes, detached, played, serving, first []time.Duration
	// Each run times the floor and then a pod, so both see the same load.
	for i := range runs {
		name := "riot-bench-empty-" + randomHex(t, 4)
		start := time.Now()
		if _, err := pm.run(t.Context(), "", "run", "--name", name, floor); err != nil {
			t.Fatal(err)
		}
		floorTimes = append(floorTimes, time.Since(start))
		start = time.Now()
		if _, err := pm.run(t.Context(), "", "run", "--detach", "--name", name+"-d", floor); err != nil {
			t.Fatal(err)
		}
		detached = append(detached, time.Since(start))
		// Removed untimed, as the pod is.
		if _, err := pm.run(t.Context(), "", "rm", "--force", name, name+"-d"); err != nil {
			t.Fatal(err)
		}

		m := sessionManifest(t, image, 1)
		ip := fmt.Sprintf("10.89.0.%d", 200+i%50)
		s := m.sessions[0]
		start = time.Now()
		if _, err := pm.run(t.Context(), m.dir, "kube", "play", "--quiet", "--ip", ip, m.file); err != nil {
			t.Fatal(err)
		}
		played = append(played, time.Since(start))
		addr := net.JoinHostPort(ip, "8765")
		// Polled every 2 ms: a tighter loop takes a core from riot's start.
		poll := time.NewTicker(2 * time.Millisecond)
		for {
			c, err := net.DialTimeout("tcp", addr, time.Second)
			if err == nil {
				c.Close()
				break
			}
			if time.Since(start) > time.Minute {
				t.Fatalf("riot did not listen at %s within a minute: %v", addr, err)
			}
			<-poll.C
		}
		poll.Stop()
		serving = append(serving, time.Since(start))
		client := mcp.NewClient(&mcp.Implementation{Name: "riot-pod-bench", Version: "1"}, nil)
		cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/", HTTPClient: &http.Client{Transport: bearer{s.token}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": "echo ready"}})
		if err != nil || res.IsError || !strings.Contains(text(res), "ready") {
			t.Fatalf("first call: %v %+v", err, res)
		}
		first = append(first, time.Since(start))
		cs.Close()
		if err := m.down(context.Background(), pm); err != nil {
			t.Fatal(err)
		}
	}
	row := func(name string, d []time.Duration) {
		p50, p95 := quantiles(d)
		fp50, fp95 := quantiles(floorTimes)
		fmt.Printf("pods: %-58s median %7s  p95 %7s  (%.2fx / %.2fx the floor)\n", name, ms(p50), ms(p95),
			float64(p50)/float64(fp50), float64(p95)/float64(fp95))
	}
	fmt.Printf("pods: %d runs each\n", runs)
	row("podman run of an empty static container (the floor)", floorTimes)
	row("podman run --detach of it, until podman returns", detached)
	row("kube play of pod.yaml, until kube play returns", played)
	row("kube play of pod.yaml, until riot accepts connections", serving)
	row("kube play of pod.yaml, until the first tool result (Bash)", first)
}

// emptyImage imports an image holding only an empty static Go program,
// built here, and removes it when the test ends.
func emptyImage(t *testing.T, pm podman) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "empty")
	build := exec.Command("go", "build", "-o", bin, src)
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the empty program: %v\n%s", err, out)
	}
	prog, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	var archive bytes.Buffer
	tw := tar.NewWriter(&archive)
	if err := tw.WriteHeader(&tar.Header{Name: "empty", Mode: 0o755, Size: int64(len(prog)), Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(prog); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	name := "localhost/riot-bench-empty:" + randomHex(t, 4)
	imp := pm.command(t.Context(), "", "import", "--change", `ENTRYPOINT ["/empty"]`, "-", name)
	imp.Stdin = &archive
	if out, err := imp.CombinedOutput(); err != nil {
		t.Fatalf("podman import: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if _, err := pm.run(context.Background(), "", "rmi", name); err != nil {
			t.Error(err)
		}
	})
	return name
}

// podMemory sums the memory of the processes in a session pod's riot
// container, from /proc: resident (RSS, which counts in full the pages
// shared with other processes, the same binaries' text among them),
// proportional (PSS, which splits them among their users) and private
// (USS, what another pod adds); and the container's cgroup usage as podman
// stats reports it.
type podMemory struct {
	procs         int
	rss, pss, uss int64 // kB
	cgroup        string
	commands      string
}

func measurePod(t *testing.T, pm podman, pod string) podMemory {
	t.Helper()
	out, err := pm.run(t.Context(), "", "top", pod+"-riot", "hpid")
	if err != nil {
		t.Fatal(err)
	}
	var m podMemory
	for _, f := range strings.Fields(out)[1:] {
		data, err := os.ReadFile("/proc/" + f + "/smaps_rollup")
		if err != nil {
			t.Fatalf("read the memory of pid %s (the benchmark reads /proc as root): %v", f, err)
		}
		m.procs++
		for _, line := range strings.Split(string(data), "\n") {
			fields := strings.Fields(line)
			if len(fields) < 2 {
				continue
			}
			kb, _ := strconv.ParseInt(fields[1], 10, 64)
			switch fields[0] {
			case "Rss:":
				m.rss += kb
			case "Pss:":
				m.pss += kb
			case "Private_Clean:", "Private_Dirty:":
				m.uss += kb
			}
		}
	}
	if m.commands, err = pm.run(t.Context(), "", "top", pod+"-riot", "args"); err != nil {
		t.Fatal(err)
	}
	m.cgroup, err = pm.run(t.Context(), "", "stats", "--no-stream", "--no-reset", "--format", "{{.MemUsage}}", pod+"-riot")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The memory of idle session pods after one call to each of Bash, Read and
// Grep (so their plugins run), with one pod and then with ten.
func TestBenchPodMemory(t *testing.T) {
	benchRuns(t)
	image, pm := requireImage(t)
	warm := func(s session) {
		t.Helper()
		if err := importFiles(t.Context(), pm, s.workspace, map[string]string{"notes.txt": "riot\n"}); err != nil {
			t.Fatal(err)
		}
		cs, err := connect(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		for _, c := range []struct {
			name string
			args map[string]any
		}{
			{"Bash", map[string]any{"command": "ls"}},
			{"Read", map[string]any{"file_path": "/workspace/notes.txt"}},
			{"Grep", map[string]any{"pattern": "riot"}},
		} {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: c.name, Arguments: c.args})
			if err != nil || res.IsError {
				t.Fatalf("%s: %v %+v", c.name, err, res)
			}
		}
	}
	report := func(sessions []session) {
		var total podMemory
		for _, s := range sessions {
			m := measurePod(t, pm, s.pod)
			total.procs += m.procs
			total.rss += m.rss
			total.pss += m.pss
			total.uss += m.uss
			total.cgroup, total.commands = m.cgroup, m.commands
		}
		n := int64(len(sessions))
		if n == 1 {
			fmt.Printf("pods: the processes of an idle session pod:\n%s\n", total.commands)
		}
		mb := func(kb int64) string { return fmt.Sprintf("%.1f MB", float64(kb)/1024) }
		fmt.Printf("pods: %2d idle session pods, %d processes each: per pod RSS %s, PSS %s, USS %s; all pods PSS %s, USS %s; the last pod's cgroup %s\n",
			n, total.procs/len(sessions), mb(total.rss/n), mb(total.pss/n), mb(total.uss/n), mb(total.pss), mb(total.uss), total.cgroup)
	}
	one := playPods(t, image, pm, 1)
	warm(one[0])
	report(one)
	rest := playPods(t, image, pm, 9)
	all := append(one, rest...)
	for _, s := range rest {
		warm(s)
	}
	report(all)
}
