package memo

import (
	"bytes"
	"io/fs"
	"strconv"

	"github.com/riot-tools/riot/internal/fileid"
)

// An entry's file is a header of lines, then what the invocation printed,
// byte for byte:
//
//	riot memo 1
//	exe "/usr/local/bin/riot"
//	dir "/home/me/project"
//	env "HOME=/home/me"          (each of Key.Env)
//	arg "tools"                   (each of Key.Args)
//	look "/home/me/.config/riot/config.toml" err "absent"
//	look "/usr/local/bin/riot" id DEV INO MODE SIZE MTIME CTIME
//	look "/link" id ... target id ...   (a symlink and its target)
//	end
//
// Strings are Go-quoted (strconv.Quote), so no line holds a newline of its
// own; a file that is not exactly this is no entry.
const magic = "riot memo 1"

func encode(k Key, snap fileid.Snapshot, stdout []byte) []byte {
	b := append([]byte(magic), '\n')
	b = quoted(b, "exe", k.Exe)
	b = quoted(b, "dir", k.Dir)
	for _, e := range k.Env {
		b = quoted(b, "env", e)
	}
	for _, a := range k.Args {
		b = quoted(b, "arg", a)
	}
	for i, p := range snap.Paths {
		b = append(b, "look "...)
		b = strconv.AppendQuote(b, p)
		b = appendLook(b, snap.Looks[i])
		b = append(b, '\n')
	}
	b = append(b, "end\n"...)
	return append(b, stdout...)
}

func quoted(b []byte, tag, s string) []byte {
	b = append(append(b, tag...), ' ')
	return append(strconv.AppendQuote(b, s), '\n')
}

func appendLook(b []byte, l fileid.Look) []byte {
	if l.Err != "" {
		return strconv.AppendQuote(append(b, " err "...), l.Err)
	}
	b = append(b, " id"...)
	for _, n := range []uint64{l.ID.Dev, l.ID.Ino, uint64(l.ID.Mode)} {
		b = strconv.AppendUint(append(b, ' '), n, 10)
	}
	for _, n := range []int64{l.ID.Size, l.ID.MtimeNs, l.ID.CtimeNs} {
		b = strconv.AppendInt(append(b, ' '), n, 10)
	}
	if l.Target != nil {
		b = appendLook(append(b, " target"...), *l.Target)
	}
	return b
}

// decode reads an entry's file; ok is false for anything but one.
func decode(data []byte) (k Key, snap fileid.Snapshot, stdout []byte, ok bool) {
	line, rest, found := bytes.Cut(data, []byte("\n"))
	if !found || string(line) != magic {
		return Key{}, fileid.Snapshot{}, nil, false
	}
	seenExe, seenDir := false, false
	for {
		line, rest, found = bytes.Cut(rest, []byte("\n"))
		if !found {
			return Key{}, fileid.Snapshot{}, nil, false
		}
		if string(line) == "end" {
			break
		}
		tag, val, _ := bytes.Cut(line, []byte(" "))
		s, after, good := unquote(val)
		if !good || (string(tag) != "look" && len(after) > 0) {
			return Key{}, fileid.Snapshot{}, nil, false
		}
		switch string(tag) {
		case "exe":
			k.Exe, good, seenExe = s, !seenExe, true
		case "dir":
			k.Dir, good, seenDir = s, !seenDir, true
		case "env":
			k.Env = append(k.Env, s)
		case "arg":
			k.Args = append(k.Args, s)
		case "look":
			var l fileid.Look
			if l, good = parseLook(s, after); good {
				snap.Paths = append(snap.Paths, s)
				snap.Looks = append(snap.Looks, l)
			}
		default:
			good = false
		}
		if !good {
			return Key{}, fileid.Snapshot{}, nil, false
		}
	}
	if !seenExe || !seenDir {
		return Key{}, fileid.Snapshot{}, nil, false
	}
	return k, snap, rest, true
}

// unquote reads the quoted string b starts with; after is what follows it.
func unquote(b []byte) (s string, after []byte, ok bool) {
	q, err := strconv.QuotedPrefix(string(b))
	if err != nil {
		return "", nil, false
	}
	s, err = strconv.Unquote(q)
	return s, b[len(q):], err == nil
}

// parseLook reads a look at path p from what follows its quoted path.
func parseLook(p string, b []byte) (fileid.Look, bool) {
	switch {
	case bytes.HasPrefix(b, []byte(" err ")):
		s, after, ok := unquote(b[len(" err "):])
		return fileid.Look{Err: s}, ok && len(after) == 0 && s != ""
	case !bytes.HasPrefix(b, []byte(" id ")):
		return fileid.Look{}, false
	}
	fields := bytes.Fields(b[len(" id "):])
	if len(fields) < 6 || len(fields) > 6 && string(fields[6]) != "target" {
		return fileid.Look{}, false
	}
	var u [3]uint64
	var n [3]int64
	for i := range 6 {
		var err error
		if i < 3 {
			u[i], err = strconv.ParseUint(string(fields[i]), 10, 64)
		} else {
			n[i-3], err = strconv.ParseInt(string(fields[i]), 10, 64)
		}
		if err != nil {
			return fileid.Look{}, false
		}
	}
	id := fileid.ID{Path: p, Dev: u[0], Ino: u[1], Mode: fs.FileMode(u[2]), Size: n[0], MtimeNs: n[1], CtimeNs: n[2]}
	if uint64(id.Mode) != u[2] {
		return fileid.Look{}, false
	}
	l := fileid.Look{ID: id, Newest: id.Changed()}
	if len(fields) == 6 {
		return l, true
	}
	// What follows "target" is the target's look, as appendLook wrote it.
	i := bytes.Index(b, []byte(" target "))
	t, ok := parseLook(p, b[i+len(" target"):])
	if !ok || t.Target != nil {
		return fileid.Look{}, false
	}
	l.Target = &t
	l.Newest = max(l.Newest, t.Newest)
	return l, true
}
