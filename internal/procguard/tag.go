package procguard

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// TagPrefix begins the name of a Guard's tag: an environment variable,
// TagPrefix plus random hex, that the Guard's owner puts in the
// environment of every command it starts. Whatever a command forks
// inherits it, including what it forked before its owner could register
// its group, and what left the group with setsid. So when the owner dies,
// the Guard finds those processes by the tag in /proc/PID/environ and
// kills them too: only a process that also dropped the variable from its
// environment escapes, which the SDK's kernel sandbox covers. The name,
// not the value, is the tag, so that commands of nested owners carry the
// tags of all of them and each Guard finds its own.
const TagPrefix = "RIOT_PROC_GUARD_TAG_"

// tagHexLen is the length of a tag's random part: 128 bits, so no other
// process carries it by chance.
const tagHexLen = 32

// newTag returns a fresh tag name, or "" where no randomness is to be had
// (the Guard then kills registered groups only).
func newTag() string {
	b := make([]byte, tagHexLen/2)
	if _, err := rand.Read(b); err != nil {
		return ""
	}
	return TagPrefix + hex.EncodeToString(b)
}

// validTag reports whether name is a tag as newTag makes them: a Guard
// takes no other, since it kills every process that carries it.
func validTag(name string) bool {
	hexPart, ok := strings.CutPrefix(name, TagPrefix)
	if !ok || len(hexPart) != tagHexLen {
		return false
	}
	_, err := hex.DecodeString(hexPart)
	return err == nil && strings.ToLower(hexPart) == hexPart
}

// hasTag reports whether environ, the NUL-separated contents of
// /proc/PID/environ, holds the variable name.
func hasTag(environ []byte, name string) bool {
	for len(environ) > 0 {
		entry := environ
		if i := bytes.IndexByte(environ, 0); i >= 0 {
			entry, environ = environ[:i], environ[i+1:]
		} else {
			environ = nil
		}
		if len(entry) > len(name) && entry[len(name)] == '=' && string(entry[:len(name)]) == name {
			return true
		}
	}
	return false
}
