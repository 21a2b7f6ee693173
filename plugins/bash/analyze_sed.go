package bash

import "strings"

// sedCmd allows only `sed -n` (or --quiet/--silent) with print-only scripts; every option must be one we know
// does not write (so not -i, --in-place, or -f, whose script we cannot see). The script is the first operand
// unless given by -e/--expression; the other operands, and a -f script file, are read paths.
func sedCmd(w *walker, _ string, args []word) bool {
	ok, quiet, fromFile := true, false, false
	var scripts []string
	var ops []word
	// value is the value of the option at args[i], attached (rest) or the next word.
	value := func(i *int, rest string) (word, bool) {
		if rest != "" {
			return word{text: rest, lit: true}, true
		}
		if *i+1 < len(args) {
			*i++
			return args[*i], true
		}
		return word{}, false
	}
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case t == "-" || !strings.HasPrefix(t, "-"):
			ops = append(ops, args[i])
		case strings.HasPrefix(t, "--"):
			name, v, eq := strings.Cut(t, "=")
			switch name {
			case "--quiet", "--silent":
				quiet = true
			case "--expression":
				if eq {
					scripts = append(scripts, v)
				} else if s, found := value(&i, ""); found {
					scripts = append(scripts, s.text)
				}
			case "--line-length":
				if !eq {
					value(&i, "")
				}
			case "--regexp-extended", "--separate", "--unbuffered", "--null-data", "--zero-terminated", "--posix",
				"--debug", "--sandbox":
			default:
				ok = false
			}
		default:
		cluster:
			for j := 1; j < len(t); j++ {
				switch t[j] {
				case 'n':
					quiet = true
				case 'E', 'r', 's', 'u', 'z':
				case 'e':
					if s, found := value(&i, t[j+1:]); found {
						scripts = append(scripts, s.text)
					}
					break cluster
				case 'l':
					value(&i, t[j+1:])
					break cluster
				case 'f':
					ok, fromFile = false, true
					if s, found := value(&i, t[j+1:]); found {
						w.readPath(s)
					}
					break cluster
				default: // -i edits in place; anything else we do not know
					ok = false
				}
			}
		}
	}
	if len(scripts) == 0 && !fromFile && len(ops) > 0 {
		scripts, ops = append(scripts, ops[0].text), ops[1:]
	}
	for _, p := range ops {
		if p.text != "-" {
			w.readPath(p)
		}
	}
	for _, s := range scripts {
		ok = ok && sedPrintOnly(s)
	}
	return ok && quiet && len(scripts) > 0
}

// sedPrintOnly reports whether a sed script only prints, moves through the input and quits: the commands
// p P = l n N d D g G h H x z q Q and { }, each with an optional address (N, $, N~M, /re/ or \cREc with I and M
// flags, and ranges with , +N ~N) and an optional !. GNU sed's e and s///e run programs; w, W and s///w write
// files; r and R read files we would not see; none of them is allowed, and neither are comments.
func sedPrintOnly(s string) bool {
	i := 0
	for {
		i = skip(s, i, " \t\n;}")
		if i == len(s) {
			return true
		}
		var ok bool
		if i, ok = sedAddress(s, i); !ok {
			return false
		}
		if i < len(s) && s[i] == ',' {
			if i, ok = sedAddress(s, i+1); !ok {
				return false
			}
		}
		i = skip(s, i, " \t")
		if i < len(s) && s[i] == '!' {
			i = skip(s, i+1, " \t")
		}
		if i == len(s) {
			return false // an address without a command
		}
		c := s[i]
		i++
		switch {
		case c == '{':
			continue
		case strings.IndexByte("pP=nNdDgGhHxz", c) >= 0:
		case strings.IndexByte("lqQ", c) >= 0: // with an optional number
			i = skip(s, skip(s, i, " \t"), "0123456789")
		default:
			return false
		}
		i = skip(s, i, " \t")
		if i < len(s) && strings.IndexByte(";\n}", s[i]) < 0 {
			return false
		}
	}
}

// sedAddress parses an optional address at s[i:] and returns the index after it.
func sedAddress(s string, i int) (int, bool) {
	if i == len(s) {
		return i, true
	}
	switch c := s[i]; c {
	case '$':
		return i + 1, true
	case '/', '\\':
		delim, j := c, i+1
		if c == '\\' {
			if j == len(s) || s[j] == '\n' || s[j] == '\\' {
				return i, false
			}
			delim, j = s[j], i+2
		}
		// As GNU sed reads it: a backslash escapes the next character, the delimiter included; brackets do not.
		for ; j < len(s) && s[j] != delim; j++ {
			if s[j] == '\\' {
				j++
			}
			if j == len(s) || s[j] == '\n' {
				return i, false
			}
		}
		if j == len(s) {
			return i, false // unterminated
		}
		return skip(s, j+1, "IM"), true
	}
	return skip(s, i, "0123456789+~"), true
}

// skip returns the index of the first byte at or after i that is not in set.
func skip(s string, i int, set string) int {
	for i < len(s) && strings.IndexByte(set, s[i]) >= 0 {
		i++
	}
	return i
}
