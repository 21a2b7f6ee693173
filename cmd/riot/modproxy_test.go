package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"
)

// sdkVersion is the version the test proxy serves this checkout of riot
// at, for plugin modules to require: `go install pkg@version` refuses a
// module with replace directives, as a real release would be built.
const sdkVersion = "v0.0.1"

// modProxy is a file:// GOPROXY made in the test: this checkout of riot as
// the SDK module, and the plugin modules a test adds. What it does not
// serve comes from the module cache, as a proxy, so nothing goes online.
type modProxy struct {
	t                 *testing.T
	dir               string
	modcache, gocache string
	realCache         string
	sdkRequire        string // riot's go.mod require blocks
	sdkSum            []byte // riot's go.sum, with the SDK's own lines
}

func newModProxy(t *testing.T) *modProxy {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is needed to build plugins from a module proxy")
	}
	root := t.TempDir()
	px := &modProxy{t: t, dir: filepath.Join(root, "proxy"), modcache: filepath.Join(root, "modcache")}
	px.realCache = goEnv(t, "GOMODCACHE")
	px.gocache = goEnv(t, "GOCACHE")
	repo := filepath.Dir(goEnv(t, "GOMOD"))
	gomod, err := os.ReadFile(filepath.Join(repo, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	gosum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if _, after, ok := strings.Cut(string(gomod), "\nrequire"); ok {
		px.sdkRequire = "require" + after
	}
	sum, modSum := px.add("github.com/riot-tools/riot", sdkVersion, sourceFiles(t, repo), gomod)
	px.sdkSum = fmt.Appendf(gosum, "github.com/riot-tools/riot %s %s\ngithub.com/riot-tools/riot %s/go.mod %s\n", sdkVersion, sum, sdkVersion, modSum)
	return px
}

func goEnv(t *testing.T, key string) string {
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// env is what the go command needs under riot to use the proxy alone.
func (px *modProxy) env() []string {
	return []string{
		"GOPROXY=file://" + px.dir + ",file://" + filepath.Join(px.realCache, "cache", "download"),
		"GOSUMDB=off", "GOFLAGS=-mod=mod -modcacherw", "GOTOOLCHAIN=local",
		"GOMODCACHE=" + px.modcache, "GOPATH=" + filepath.Join(filepath.Dir(px.modcache), "gopath"), "GOCACHE=" + px.gocache,
	}
}

// plugin adds a version of a plugin module whose main package
// cmd/riot-tool-greet serves tools in the given order; body, if set,
// replaces its main.go.
func (px *modProxy) plugin(mod, version string, tools []string, body string) (sum string) {
	px.t.Helper()
	gomod := fmt.Appendf(nil, "module %s\n\ngo 1.26.0\n\nrequire github.com/riot-tools/riot %s\n\n%s", mod, sdkVersion, px.sdkRequire)
	if body == "" {
		var b strings.Builder
		b.WriteString("package main\n\nimport (\n\t\"context\"\n\n\t\"github.com/riot-tools/riot/plugin\"\n)\n\ntype in struct {\n\tName string `json:\"name\"`\n}\n\n")
		var handlers []string
		for _, tool := range tools {
			fmt.Fprintf(&b, "type %[1]s struct{}\n\nfunc (%[1]s) Name() string { return %[1]q }\nfunc (%[1]s) Prompt() string { return \"Says %[1]s.\" }\nfunc (%[1]s) Describe(in) string { return %[1]q }\nfunc (%[1]s) ValidateInput(context.Context, in, *plugin.Env) plugin.Validation { return plugin.Accepted() }\nfunc (%[1]s) Call(_ context.Context, i in, _ *plugin.Env) plugin.Outcome { return plugin.Ok(plugin.Text(%[1]q + \", \" + i.Name)) }\n\n", tool)
			handlers = append(handlers, fmt.Sprintf("plugin.New[in](%s{})", tool))
		}
		fmt.Fprintf(&b, "func main() { plugin.Serve(%s) }\n", strings.Join(handlers, ", "))
		body = b.String()
	}
	files := []modFile{
		{path: "go.mod", data: gomod},
		{path: "go.sum", data: px.sdkSum},
		{path: "cmd/riot-tool-greet/main.go", data: []byte(body)},
	}
	sum, _ = px.add(mod, version, files, gomod)
	return sum
}

// add lays one module version out as the GOPROXY protocol has it and
// returns its h1: sums (zip, go.mod).
func (px *modProxy) add(mod, version string, files []modFile, gomod []byte) (string, string) {
	px.t.Helper()
	dir := filepath.Join(px.dir, filepath.FromSlash(mod), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		px.t.Fatal(err)
	}
	zf := make([]modzip.File, len(files))
	for i := range files {
		zf[i] = files[i]
	}
	var zb bytes.Buffer
	if err := modzip.Create(&zb, module.Version{Path: mod, Version: version}, zf); err != nil {
		px.t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]string{"Version": version, "Time": "2026-01-01T00:00:00Z"})
	for name, data := range map[string][]byte{version + ".zip": zb.Bytes(), version + ".mod": gomod, version + ".info": info} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			px.t.Fatal(err)
		}
	}
	list, _ := os.ReadFile(filepath.Join(dir, "list"))
	if err := os.WriteFile(filepath.Join(dir, "list"), append(list, version+"\n"...), 0o644); err != nil {
		px.t.Fatal(err)
	}
	sum, err := dirhash.HashZip(filepath.Join(dir, version+".zip"), dirhash.Hash1)
	if err != nil {
		px.t.Fatal(err)
	}
	modSum, err := dirhash.Hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(gomod)), nil })
	if err != nil {
		px.t.Fatal(err)
	}
	return sum, modSum
}

// modFile is a file of a module zip held in memory.
type modFile struct {
	path string
	data []byte
}

func (f modFile) Path() string                 { return f.path }
func (f modFile) Lstat() (os.FileInfo, error)  { return memInfo{f}, nil }
func (f modFile) Open() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(f.data)), nil }

type memInfo struct{ f modFile }

func (i memInfo) Name() string       { return filepath.Base(i.f.path) }
func (i memInfo) Size() int64        { return int64(len(i.f.data)) }
func (i memInfo) Mode() fs.FileMode  { return 0o644 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }

// sourceFiles are the Go sources and go.mod of the checkout at repo,
// outside nested modules: what the SDK module needs, without binaries.
func sourceFiles(t *testing.T, repo string) []modFile {
	var out []modFile
	err := filepath.WalkDir(repo, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, path)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if rel != "go.mod" && (!strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go")) {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out = append(out, modFile{path: filepath.ToSlash(rel), data: data})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
