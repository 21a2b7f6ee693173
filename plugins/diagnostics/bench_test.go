package diagnostics

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/plugintest"
	"github.com/riot-tools/riot/shared"
)

// The parser benchmarks scale a recorded output up to about a thousand
// diagnostics, a bad day on a large project.

func BenchmarkParseGoVet(b *testing.B) {
	rec := loadRecording(b, "go/mixed")
	stdout := bytes.Repeat(rec.stdout, 250)
	stderr := bytes.Repeat(rec.stderr, 250)
	b.SetBytes(int64(len(stdout) + len(stderr)))
	for b.Loop() {
		if _, err := parseGoVet(stdout, stderr, recRoot+"/gomod"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseCargo(b *testing.B) {
	rec := loadRecording(b, "cargo/errors")
	stdout := bytes.Repeat(rec.stdout, 330)
	b.SetBytes(int64(len(stdout)))
	for b.Loop() {
		if _, err := parseCargo(stdout, recRoot+"/crate"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseTsc(b *testing.B) {
	rec := loadRecording(b, "tsc/errors")
	stdout := bytes.Repeat(rec.stdout, 250)
	b.SetBytes(int64(len(stdout)))
	for b.Loop() {
		if _, err := parseTsc(stdout, recRoot+"/tsproj"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFinishAndRender(b *testing.B) {
	rec := loadRecording(b, "go/mixed")
	pr, err := parseGoVet(bytes.Repeat(rec.stdout, 250), bytes.Repeat(rec.stderr, 250), recRoot+"/gomod")
	if err != nil {
		b.Fatal(err)
	}
	p := &plan{Checker: checkerGo, Display: "go vet ./...", DirShown: ".", Scope: "./..."}
	env := &plugin.Env{Cwd: recRoot + "/gomod"}
	for b.Loop() {
		cp := parsed{Diags: append([]Diagnostic(nil), pr.Diags...)}
		finish(&cp, env)
		_ = render(p, cp.Diags, nil)
	}
}

// BenchmarkCheckGoModule is the whole tool on a small clean module through
// the SDK's server, as a plugin serves it (without the gRPC transport, whose
// test harness logs to stdout and would garble the benchmark output):
// Prepare, then Call, which starts go vet. Compare with BenchmarkRawGoVet,
// the same go vet run directly; the difference is what the tool adds.
func BenchmarkCheckGoModule(b *testing.B) {
	srv, err := plugin.NewServer(plugin.Runtime{Clock: plugin.SystemClock{}, Proc: plugintest.RealProc(b)}, newHandler(options{environ: testEnviron()}))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	writeFiles(b, dir, benchModule)
	cc := shared.CallContext{Cwd: dir, WorkspaceRoots: []string{dir}, PermissionMode: "default"}
	ctx := context.Background()
	for b.Loop() {
		if _, err := srv.Prepare(ctx, shared.PrepareRequest{Tool: toolName, CallID: "b", Input: []byte(`{}`), Context: cc}); err != nil {
			b.Fatal(err)
		}
		var text []byte
		var final *shared.Final
		err := srv.Call(ctx, shared.CallRequest{Tool: toolName, CallID: "b", Input: []byte(`{}`), Context: cc}, func(ev shared.CallEvent) error {
			if c := ev.Chunk; c != nil {
				text = append(text, c.Data...)
			}
			if f := ev.Final; f != nil {
				final = f
			}
			return nil
		})
		if err != nil || final == nil || final.Status != shared.StatusOK || !strings.HasSuffix(string(text), "no problems found\n") {
			b.Fatalf("%v %v %s", err, final, text)
		}
	}
}

func BenchmarkRawGoVet(b *testing.B) {
	dir := b.TempDir()
	writeFiles(b, dir, benchModule)
	env := testEnviron()
	for b.Loop() {
		cmd := exec.CommandContext(context.Background(), "go", "vet", "-json", "./...")
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}

var benchModule = map[string]string{
	"go.mod":     "module example.com/bench\n\ngo 1.26\n",
	"a/a.go":     "package a\n\nimport \"fmt\"\n\nfunc A() string { return fmt.Sprint(1) }\n",
	"b/b.go":     "package b\n\nimport \"example.com/bench/a\"\n\nfunc B() string { return a.A() }\n",
	"c/c.go":     "package c\n\nimport \"strings\"\n\nfunc C() string { return strings.ToUpper(\"c\") }\n",
	"cmd/x/x.go": "package main\n\nimport (\n\t\"example.com/bench/b\"\n\t\"os\"\n)\n\nfunc main() { os.Stdout.WriteString(b.B()) }\n",
}
