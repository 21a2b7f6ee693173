package main_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/riot-tools/riot/config/lock"
)

// riotEnv runs riot with extra environment.
func (e *env) riotEnv(extra []string, args ...string) result {
	e.t.Helper()
	return e.riotWith(extra, "", args...)
}

func (e *env) readLock() *lock.File {
	e.t.Helper()
	f, err := lock.Read(lock.Path(e.ws))
	if err != nil {
		e.t.Fatal(err)
	}
	return f
}

func fileSum(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

func (e *env) read(name string) string {
	e.t.Helper()
	data, err := os.ReadFile(filepath.Join(e.ws, name))
	if err != nil && !os.IsNotExist(err) {
		e.t.Fatal(err)
	}
	return string(data)
}

// TestPluginLifecycleFromModuleProxy installs a plugin module from a
// module proxy made in the test, and goes through its lifecycle: the lock's
// content, a tampered binary refused and reinstalled, verify, an upgrade
// that appends a tool, one that reorders them refused, bad input of every
// kind leaving the previous state, and remove.
func TestPluginLifecycleFromModuleProxy(t *testing.T) {
	px := newModProxy(t)
	const mod = "example.com/riotplug"
	const pkg = mod + "/cmd/riot-tool-greet"
	sum1 := px.plugin(mod, "v1.0.0", []string{"Hello"}, "")
	sum2 := px.plugin(mod, "v1.1.0", []string{"Hello", "Bye"}, "")
	px.plugin("example.com/broken", "v1.0.0", nil, "package main\n\nfunc main() { undefinedCall() }\n")
	e := newEnv(t)
	e.trust() // the workspace config declares the plugins
	goenv := px.env()
	run := func(args ...string) result { return e.riotEnv(goenv, args...) }
	bin := filepath.Join(e.ws, ".riot", "plugins", "riot-tool-greet")

	run("plugins", "install", pkg+"@v1.0.0").want(t, 0, "greet v1.0.0 installed", "(protocol 1); tools: Hello", "building "+pkg+"@v1.0.0")
	lk := e.readLock()
	g := lk.Plugins["greet"]
	if g == nil || g.Source != pkg || g.Version != "v1.0.0" || g.Sum != sum1 || g.Protocol != 1 || strings.Join(g.Tools, ",") != "Hello" {
		t.Fatalf("lock entry %+v, want source %s, v1.0.0, sum %s, protocol 1, tools [Hello]", g, pkg, sum1)
	}
	if got, want := g.SHA256[runtime.GOOS+"_"+runtime.GOARCH], fileSum(t, bin); got != want {
		t.Fatalf("lock pins sha256 %s, the installed binary has %s", got, want)
	}
	if cfg := e.read(".riot/config.toml"); !strings.Contains(cfg, "[plugins.greet]\nenabled = true\nsource = \""+pkg+"\"\nversion = \"v1.0.0\"\n") {
		t.Fatalf("the workspace config does not declare the plugin:\n%s", cfg)
	}
	run("tools").want(t, 0, "Hello")
	run("plugins").want(t, 0, "source:   "+pkg+" (locked at v1.0.0)", "protocol: 1")
	run("plugins", "verify").want(t, 0, "1 plugin(s) match")

	t.Run("a tampered binary is refused and reinstalled", func(t *testing.T) {
		good, _ := os.ReadFile(bin)
		if err := os.WriteFile(bin, append(good, "tampered"...), 0o755); err != nil {
			t.Fatal(err)
		}
		// .riot/plugins is no longer what the user trusted, so it is not
		// searched (and the lock would refuse the binary too).
		run("plugins").want(t, 0, ".riot/plugins (discovery); to review the change and apply it, run: riot trust", "riot plugins install")
		r := run("call", "Hello", `{"name":"x"}`)
		if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "the plugin greet is enabled but cannot start") {
			t.Fatalf("a tampered plugin was called: %+v", r)
		}
		run("plugins", "verify").want(t, 1, "greet: The greet plugin is locked but its binary is not installed here", "`riot plugins install`")
		// The remedy riot printed, run as printed: reinstalling the locked
		// binary makes .riot/plugins what the user trusted again.
		remedy := regexp.MustCompile("`riot (plugins install[^`]*)`").FindStringSubmatch(run("plugins").stdout)
		if remedy == nil {
			t.Fatal("riot plugins printed no install command for the tampered binary")
		}
		run(strings.Fields(remedy[1])...).want(t, 0, "greet v1.0.0 installed")
		if fileSum(t, bin) != g.BinarySHA256() {
			t.Fatal("install did not restore the locked binary")
		}
		run("plugins", "verify").want(t, 0, "match")
	})

	t.Run("upgrade within the constraint appends a tool", func(t *testing.T) {
		e.write(".riot/config.toml", strings.Replace(e.read(".riot/config.toml"), `version = "v1.0.0"`, `version = "~> 1.0"`, 1))
		run("plugins", "install").want(t, 0, "greet v1.0.0 is installed") // v1.0.0 meets ~> 1.0: kept
		run("plugins", "upgrade", "greet").want(t, 0, "greet v1.1.0 installed", "appends Bye (now Hello, Bye)")
		g2 := e.readLock().Plugins["greet"]
		if g2.Version != "v1.1.0" || g2.Sum != sum2 || g2.Constraint != "~> 1.0" || strings.Join(g2.Tools, ",") != "Hello,Bye" {
			t.Fatalf("lock after upgrade: %+v", g2)
		}
		run("tools").want(t, 0, "Hello", "Bye")
	})

	t.Run("an upgrade that reorders tools is refused and changes nothing", func(t *testing.T) {
		px.plugin(mod, "v1.2.0", []string{"Bye", "Hello"}, "")
		before, binBefore := e.read(".riot/plugins.lock"), fileSum(t, bin)
		run("plugins", "upgrade", "greet").want(t, 1, "reorders them (Bye, Hello, locked as Hello, Bye)", "nothing was installed", "--accept-tools-change")
		if e.read(".riot/plugins.lock") != before || fileSum(t, bin) != binBefore {
			t.Fatal("a refused upgrade changed the lock or the binary")
		}
		if ents, _ := os.ReadDir(filepath.Dir(bin)); len(ents) != 1 {
			t.Fatalf("a refused upgrade left files in the plugin directory: %v", ents)
		}
	})

	t.Run("a lock whose tools are in another order refuses the plugin at start", func(t *testing.T) {
		before := e.read(".riot/plugins.lock")
		defer e.write(".riot/plugins.lock", before)
		e.write(".riot/plugins.lock", strings.Replace(before, `tools = ["Hello", "Bye"]`, `tools = ["Bye", "Hello"]`, 1))
		run("plugins").want(t, 0, "serves its tools in another order (Hello, Bye) than "+lock.Path(e.ws)+" records (Bye, Hello)", "riot plugins upgrade greet")
		if r := run("tools"); strings.Contains(r.stdout, "Hello") {
			t.Fatalf("a plugin whose tools moved was listed:\n%s", r.stdout)
		}
		// Calling one of its tools says why it is out, not that no such tool exists.
		run("call", "Hello", `{"name":"x"}`).want(t, 2, "the Hello tool is unavailable", "another order", "riot plugins upgrade greet")
		e.riotWith(goenv, `[{"type":"tool_use","id":"t1","name":"Hello","input":{"name":"x"}}]`, "run", "-").
			want(t, 0, `"is_error": true`, "The Hello tool is unavailable", "another order", "riot plugins upgrade greet")
		e.write(".riot/plugins.lock", strings.Replace(before, `tools = ["Hello", "Bye"]`, `tools = ["Hello", "Bye", "Gone"]`, 1))
		run("plugins").want(t, 0, `no longer serves "Gone"`)
		run("plugins", "verify").want(t, 1, "the lock records Hello, Bye, Gone")
	})

	t.Run("a module whose sum is not the locked one is not installed", func(t *testing.T) {
		before := e.read(".riot/plugins.lock")
		defer e.write(".riot/plugins.lock", before)
		e.write(".riot/plugins.lock", strings.Replace(before, sum2, sum1, 1))
		good, _ := os.ReadFile(bin)
		if err := os.Remove(bin); err != nil {
			t.Fatal(err)
		}
		defer os.WriteFile(bin, good, 0o755)
		run("plugins", "install").want(t, 1, "has sum "+sum2+", but the lock records "+sum1, "Nothing was installed")
		if _, err := os.Stat(bin); !os.IsNotExist(err) {
			t.Fatal("a module with the wrong sum was installed")
		}
	})

	t.Run("bad input is refused precisely and changes nothing", func(t *testing.T) {
		cfgBefore, lockBefore := e.read(".riot/config.toml"), e.read(".riot/plugins.lock")
		run("plugins", "install", "example.com/broken/cmd/riot-tool-greet@v1.0.0", "--name", "broken").want(t, 1, "failed; nothing was installed", "undefined: undefinedCall")
		run("plugins", "install", pkg, "--name", "g2").want(t, 2, "needs a version")
		run("plugins", "install", "nodots").want(t, 2, "is no form riot knows")
		run("plugins", "install", "ftp://example.com/x").want(t, 2, "is not a URL riot installs from")
		run("plugins", "install", pkg+"@v9.9.9", "--name", "g3").want(t, 1, "building "+pkg+"@v9.9.9 failed")
		run("plugins", "install", pkg, "--name", "g4", "--version", "~> 3.0").want(t, 2, `no version of example.com/riotplug meets "~> 3.0"`)
		if e.read(".riot/config.toml") != cfgBefore || e.read(".riot/plugins.lock") != lockBefore {
			t.Fatal("a failed install changed the config or the lock")
		}
		if ents, _ := os.ReadDir(filepath.Dir(bin)); len(ents) != 1 {
			t.Fatalf("a failed install left files in the plugin directory: %v", ents)
		}
		e.write(".riot/plugins.lock", "version = 1\n[plugins\n")
		run("plugins", "install").want(t, 2, lock.Path(e.ws)+":", "is not valid TOML", "restore it from version control")
		run("plugins", "verify").want(t, 2, "is not valid TOML")
		run("plugins").want(t, 0, "does not run while its lock is broken")
		e.write(".riot/plugins.lock", lockBefore)
	})

	t.Run("remove", func(t *testing.T) {
		run("plugins", "remove", "greet").want(t, 0, "removed greet: "+bin)
		if _, err := os.Stat(bin); !os.IsNotExist(err) {
			t.Fatal("remove left the binary")
		}
		if _, ok := e.readLock().Plugins["greet"]; ok {
			t.Fatal("remove left the lock entry")
		}
		if strings.Contains(e.read(".riot/config.toml"), "greet") {
			t.Fatalf("remove left the declaration:\n%s", e.read(".riot/config.toml"))
		}
		run("plugins", "remove", "greet").want(t, 2, `no plugin "greet" is installed`)
	})
}

// TestPluginInstallFromURL installs a release archive from a loopback
// HTTPS server, checked against the SHA256SUMS beside it, and refuses one
// whose sum does not match.
func TestPluginInstallFromURL(t *testing.T) {
	exe, err := os.ReadFile(bin.testkit)
	if err != nil {
		t.Fatal(err)
	}
	var tgz bytes.Buffer
	gz := gzip.NewWriter(&tgz)
	tw := tar.NewWriter(gz)
	for _, f := range []struct {
		name string
		mode int64
		data []byte
	}{{"README", 0o644, []byte("docs")}, {"riot-tool-testkit", 0o755, exe}} {
		if err := tw.WriteHeader(&tar.Header{Name: "testkit_1.0/" + f.name, Mode: f.mode, Size: int64(len(f.data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(f.data)
	}
	tw.Close()
	gz.Close()
	s := sha256.Sum256(tgz.Bytes())
	archive := "riot-tool-testkit_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz"
	// One source for every platform: {os} and {arch} name this machine's.
	template := "riot-tool-testkit_{os}_{arch}.tar.gz"
	good := hex.EncodeToString(s[:]) + "  " + archive + "\n"
	bad := strings.Repeat("0", 64) + "  " + archive + "\n"
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/good/" + archive, "/bad/" + archive:
			w.Write(tgz.Bytes())
		case "/good/SHA256SUMS":
			fmt.Fprint(w, good)
		case "/bad/SHA256SUMS":
			fmt.Fprint(w, bad)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	e := newEnv(t)
	e.trust() // the workspace config declares the plugins
	certFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	tlsEnv := []string{"SSL_CERT_FILE=" + certFile}

	e.riotEnv(tlsEnv, "plugins", "install", srv.URL+"/bad/"+archive).want(t, 1, "lists "+strings.Repeat("0", 64), "not the file released", "Nothing was installed")
	if _, err := os.Stat(filepath.Join(e.ws, ".riot", "plugins", "riot-tool-testkit")); !os.IsNotExist(err) {
		t.Fatal("a download whose sum does not match was installed")
	}
	e.riotEnv(tlsEnv, "plugins", "install", srv.URL+"/missing/"+archive).want(t, 1, "404")

	e.riotEnv(tlsEnv, "plugins", "install", srv.URL+"/good/"+template).want(t, 0, "testkit unversioned installed", "downloading "+srv.URL+"/good/"+archive)
	var raw struct {
		Plugins map[string]struct {
			Source string
			SHA256 map[string]string
			Tools  []string
		}
	}
	if _, err := toml.Decode(e.read(".riot/plugins.lock"), &raw); err != nil {
		t.Fatal(err)
	}
	got := raw.Plugins["testkit"]
	if got.Source != srv.URL+"/good/"+template || got.SHA256[lock.Platform()] != fileSum(t, bin.testkit) || len(got.Tools) == 0 {
		t.Fatalf("lock entry %+v", got)
	}
	e.riotEnv(tlsEnv, "plugins", "verify").want(t, 0, "1 plugin(s) match")
	// The lock pins the binary: a release replaced under the same URL is
	// refused on reinstall.
	if err := os.Remove(filepath.Join(e.ws, ".riot", "plugins", "riot-tool-testkit")); err != nil {
		t.Fatal(err)
	}
	lockText := e.read(".riot/plugins.lock")
	e.write(".riot/plugins.lock", strings.Replace(lockText, got.SHA256[lock.Platform()], strings.Repeat("a", 64), 1))
	e.riotEnv(tlsEnv, "plugins", "install").want(t, 1, "but the lock pins "+strings.Repeat("a", 64))
}

// TestPluginInstallLocal installs a local binary into the user's plugin
// directory and builds a local directory, and refuses what it must not
// edit or run.
func TestPluginInstallLocal(t *testing.T) {
	e := newEnv(t)
	goenv := []string{"GOCACHE=" + goEnv(t, "GOCACHE"), "GOMODCACHE=" + goEnv(t, "GOMODCACHE"), "GOTOOLCHAIN=local", "GOFLAGS="}
	run := func(args ...string) result { return e.riotEnv(goenv, args...) }
	userBin := filepath.Join(e.home, ".local", "share", "riot", "plugins", "riot-tool-kit")
	run("plugins", "install", bin.testkit, "--user", "--name", "kit").want(t, 0, "kit local installed as "+userBin, "this workspace is not trusted, so riot ignores its .riot/config.toml")
	e.trust() // the workspace config declares the plugins
	if fileSum(t, userBin) != fileSum(t, bin.testkit) || e.readLock().Plugins["kit"].BinarySHA256() != fileSum(t, bin.testkit) {
		t.Fatal("the local binary was not installed as it is")
	}
	run("plugins").want(t, 0, "kit (plugin, enabled)", "found in: $XDG_DATA_HOME/riot/plugins", "protocol: 1")

	hello := filepath.Join(filepath.Dir(goEnv(t, "GOMOD")), "examples", "hello-tool", "cmd", "riot-tool-hello")
	run("plugins", "install", hello).want(t, 0, "hello local installed", "tools: Hello", "building "+hello+" with go build")
	run("plugins", "verify").want(t, 0, "2 plugin(s) match")
	run("call", "Hello", `{"name":"lock"}`).want(t, 0, "Hello, lock!")

	e.write(".riot/config.toml", e.read(".riot/config.toml")+"\n[plugins.other]\nenabled = true\n")
	run("plugins", "install", bin.testkit, "--name", "other").want(t, 2, "already has [plugins.other]; add source = ")
	e.write(".riot/config.toml", e.read(".riot/config.toml")+"\n[plugins.nope]\nenabled = true\nsource = \"./nowhere\"\n")
	run("plugins").want(t, 0, `The nope plugin is declared with source "./nowhere" but not installed`)
	run("plugins", "verify").want(t, 1, "nope: The nope plugin is declared")

	// Another lifecycle command holds the workspace: this one waits for
	// nothing and changes nothing.
	dir, err := os.Open(filepath.Join(e.ws, ".riot"))
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	if err := syscall.Flock(int(dir.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	before := e.read(".riot/plugins.lock")
	run("plugins", "remove", "kit").want(t, 1, "another riot plugins command is changing "+lock.Path(e.ws))
	if e.read(".riot/plugins.lock") != before {
		t.Fatal("a command that could not take the workspace changed the lock")
	}
}
