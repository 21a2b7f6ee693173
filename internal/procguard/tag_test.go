package procguard

import (
	"strings"
	"testing"
)

func TestNewTagIsValidAndFresh(t *testing.T) {
	a, b := newTag(), newTag()
	if !validTag(a) || !validTag(b) {
		t.Fatalf("newTag made %q and %q, which validTag refuses", a, b)
	}
	if a == b {
		t.Fatalf("two tags are equal: %q", a)
	}
	if !strings.HasPrefix(a, TagPrefix) || len(a) != len(TagPrefix)+tagHexLen {
		t.Fatalf("tag %q is not TagPrefix and %d hex digits", a, tagHexLen)
	}
}

// A Guard kills whatever carries its tag, so it takes only a tag as
// newTag makes them.
func TestValidTagRefusesWhatNewTagDoesNotMake(t *testing.T) {
	hex := strings.Repeat("0123456789abcdef", 2)
	if !validTag(TagPrefix + hex) {
		t.Fatalf("refused %q", TagPrefix+hex)
	}
	for _, name := range []string{
		"",
		TagPrefix,
		TagPrefix + hex[:tagHexLen-1],
		TagPrefix + hex + "0",
		TagPrefix + strings.ToUpper(hex),
		TagPrefix + hex[:tagHexLen-1] + "g",
		"RIOT_PROC_GUARD_TAGX" + hex,
		"PATH",
		"HOME" + hex,
	} {
		if validTag(name) {
			t.Errorf("took %q", name)
		}
	}
}

func TestHasTag(t *testing.T) {
	const name = "RIOT_PROC_GUARD_TAG_x"
	for environ, want := range map[string]bool{
		"":                                 false,
		name + "=1":                        true,
		name + "=":                         true,
		"A=1\x00" + name + "=1\x00":        true,
		name + "=1\x00B=2\x00":             true,
		"A=1\x00B=2\x00":                   false,
		name + "\x00":                      false,
		name + "Y=1\x00":                   false,
		"X" + name + "=1\x00":              false,
		"B=" + name + "=1\x00":             false,
		"A=1\x00\x00" + name + "=1":        true,
		name[:len(name)-1] + "=1\x00" + "": false,
	} {
		if got := hasTag([]byte(environ), name); got != want {
			t.Errorf("hasTag(%q) = %v, want %v", environ, got, want)
		}
	}
}
