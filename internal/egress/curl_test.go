package egress

import (
	"bytes"
	"encoding/pem"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// curlRun runs the real curl with no config or environment of the
// user's; it never resolves a name itself (the proxy does).
func curlRun(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	bin, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not installed")
	}
	cmd := exec.Command(bin, append([]string{"-q", "-sS", "--max-time", "30"}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func TestCurl(t *testing.T) {
	tn, _, secure := standard(t)
	tn.name("denied.test", "203.0.113.10")
	f := startProxy(t, Options{Policy: policy(t, []string{"example.com"}, []string{"denied.test"})}, tn)
	httpProxy := "http://" + f.user + ":" + f.pass + "@" + f.addr
	socksProxy := "socks5h://" + f.user + ":" + f.pass + "@" + f.addr
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: secure.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}

	t.Run("HTTP GET", func(t *testing.T) {
		out, errs, code := curlRun(t, "-x", httpProxy, "http://example.com/hello")
		if code != 0 || out != "hello from web, host example.com" {
			t.Errorf("exit %d, %q, %s", code, out, errs)
		}
	})
	t.Run("HTTPS through CONNECT", func(t *testing.T) {
		out, errs, code := curlRun(t, "-x", httpProxy, "--cacert", ca, "https://example.com/")
		if code != 0 || out != "hello from secure, host example.com" {
			t.Errorf("exit %d, %q, %s", code, out, errs)
		}
	})
	t.Run("SOCKS5 by name", func(t *testing.T) {
		out, errs, code := curlRun(t, "-x", socksProxy, "http://example.com/socks")
		if code != 0 || out != "hello from web, host example.com" {
			t.Errorf("exit %d, %q, %s", code, out, errs)
		}
	})
	t.Run("denied over HTTP names the domain", func(t *testing.T) {
		out, errs, code := curlRun(t, "-x", httpProxy, "-D", "-", "http://denied.test/")
		if code != 0 || !strings.Contains(out, "403 Forbidden") || !strings.Contains(out, "X-Riot-Egress: denied") ||
			!strings.Contains(out, `riot's egress proxy refused denied.test:80: denied.test:80 is refused by the deny rule "denied.test"`) {
			t.Errorf("exit %d, %q, %s", code, out, errs)
		}
	})
	t.Run("denied over CONNECT", func(t *testing.T) {
		_, errs, code := curlRun(t, "-x", httpProxy, "--cacert", ca, "https://denied.test/")
		if code != 56 || !strings.Contains(errs, "403") {
			t.Errorf("exit %d, %s; want 56 and the 403", code, errs)
		}
	})
	t.Run("denied over SOCKS5", func(t *testing.T) {
		_, errs, code := curlRun(t, "-x", socksProxy, "http://denied.test/")
		if code == 0 {
			t.Errorf("exit 0, %s", errs)
		}
	})
	t.Run("without credentials", func(t *testing.T) {
		_, errs, code := curlRun(t, "-x", "http://"+f.addr, "--fail", "http://example.com/")
		if code != 22 || !strings.Contains(errs, "407") {
			t.Errorf("exit %d, %s; want 22 and the 407", code, errs)
		}
	})
	// The SOCKS5 refusal repeats the first one, which Denials keeps once.
	got := f.p.Denials(caller)
	if len(got) != 2 || got[0].Host != "denied.test" || got[0].Port != 80 || got[1].Port != 443 {
		t.Errorf("Denials = %v", got)
	}
}
