package bash

import "testing"

func TestGitHelpers(t *testing.T) {
	for _, c := range []struct {
		name  string
		names []string
		want  bool
	}{
		{"--all", []string{"--all"}, true}, {"--al", []string{"--all"}, true}, {"--a", []string{"--all"}, false},
		{"-a", []string{"--all"}, false}, {"--allx", []string{"--all"}, false}, {"x", []string{"a", "x"}, true},
	} {
		if got := abbrev(c.name, c.names...); got != c.want {
			t.Errorf("abbrev(%q, %q) = %v", c.name, c.names, got)
		}
	}
	for _, c := range []struct {
		args []string
		want bool
	}{
		{nil, true}, {[]string{"-v"}, true}, {[]string{"--verbose"}, true}, {[]string{"add", "x", "u"}, false},
		{[]string{"-v", "add"}, false}, {[]string{"get-url", "origin"}, true}, {[]string{"--verbose", "x"}, false},
	} {
		var args []word
		for _, a := range c.args {
			args = append(args, word{text: a, lit: true})
		}
		if got := gitRemoteListing(args); got != c.want {
			t.Errorf("gitRemoteListing(%q) = %v", c.args, got)
		}
	}
	for _, c := range []struct {
		path, dir string
		want      bool
	}{
		{"/a", "/a", true}, {"/a/b", "/a", true}, {"/ab", "/a", false}, {"/a/b", "/a/", true}, {"/", "/a", false},
	} {
		if got := within(c.path, c.dir); got != c.want {
			t.Errorf("within(%q, %q) = %v", c.path, c.dir, got)
		}
	}
	if orBare("") != "none: a bare repository" || orBare("/r") != "/r" {
		t.Error("orBare")
	}
}

// lowerName decides which names `read` may set and stay read-only: never one without a lower-case letter
// (PATH, IFS), which changes what later commands run.
func TestLowerName(t *testing.T) {
	for s, want := range map[string]bool{
		"a": true, "z": true, "aA": true, "aZ": true, "a0": true, "a9": true, "a_b": true, "_a": true, "line": true,
		"": false, "A": false, "PATH": false, "_": false, "0a": false, "9a": false, "a-b": false, "a{": false,
		"a`": false, "a@": false, "a[": false, "a:": false, "a/": false, "é": false,
	} {
		if got := lowerName(s); got != want {
			t.Errorf("lowerName(%q) = %v, want %v", s, got, want)
		}
	}
}
