package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCallIDOK(t *testing.T) {
	for id, want := range map[string]bool{
		"mcp_0123abcd": true, "toolu_01-A.b": true, "a": true, "09": true, "az": true, "AZ": true, "-_.": true,
		"": false, ".hidden": false, "..": false, "a/b": false, `a\b`: false, "a b": false, "a%2Fb": false, "é": false,
		"/": false, ":": false, "@": false, "[": false, "`": false, "{": false, "~": false,
	} {
		if got := callIDOK(id); got != want {
			t.Errorf("callIDOK(%q) = %v, want %v", id, got, want)
		}
	}
	long := strings.Repeat("a", 200)
	if !callIDOK(long) || callIDOK(long+"a") {
		t.Error("the 200-character limit is off")
	}
}

func TestResultURI(t *testing.T) {
	if got := resultURI("s 1", "mcp_1"); got != "riot://results/s%201/mcp_1" {
		t.Fatalf("resultURI = %q", got)
	}
	if c, ok := resultCall(resultURI("s 1", "mcp_1"), "s 1"); !ok || c != "mcp_1" {
		t.Fatalf("the URI of a result names %q %v", c, ok)
	}
}

func TestResultCall(t *testing.T) {
	for _, uri := range []string{
		"riot://results/other/mcp_1",
		"riot://results/sess/..%2Fx",
		"riot://results/sess/%2Fetc%2Fpasswd",
		"riot://results/sess/a/b",
		"riot://results/sess/.x",
		"riot://results/sess/",
		"riot://results/sess",
		"riot://results/sess/%zz",
		"riot://results/%zz/mcp_1",
		"riot://result/sess/mcp_1",
		"file:///etc/passwd",
	} {
		if c, ok := resultCall(uri, "sess"); ok {
			t.Errorf("%s names call %s", uri, c)
		}
	}
}

func TestReadResultFile(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(full, []byte("whole\noutput\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := readResultFile("riot://x", full)
	if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != "whole\noutput\n" || res.Contents[0].URI != "riot://x" || res.Contents[0].MIMEType != "text/plain" {
		t.Fatalf("read %+v %v", res, err)
	}
	link := filepath.Join(dir, "l.txt")
	if err := os.Symlink(full, link); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "d.txt")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, sub, filepath.Join(dir, "missing.txt")} {
		if _, err := readResultFile("riot://x", p); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("%s: %v, want not found", p, err)
		}
	}
}

func TestReadResultFileCut(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 64 MiB")
	}
	dir := t.TempDir()
	for _, c := range []struct {
		size int
		cut  bool
	}{{maxResourceBytes, false}, {maxResourceBytes + 1, true}} {
		p := filepath.Join(dir, "big.txt")
		if err := os.WriteFile(p, []byte(strings.Repeat("x", c.size)), 0o600); err != nil {
			t.Fatal(err)
		}
		res, err := readResultFile("riot://x", p)
		if err != nil {
			t.Fatal(err)
		}
		text := res.Contents[0].Text
		if c.cut != strings.HasSuffix(text, resourceCut) || len(strings.TrimSuffix(text, resourceCut)) != maxResourceBytes {
			t.Errorf("a %d-byte result read as %d bytes, cut %v", c.size, len(text), strings.HasSuffix(text, resourceCut))
		}
	}
}
