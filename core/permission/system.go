package permission

import (
	"path/filepath"
	"slices"
	"strings"
)

// A read-only call may read the system's own files outside the workspace
// roots without asking (issue 34): programs, libraries, documentation and
// the configuration every user may read. The read-only sandbox shows the
// same directories to every command anyway. What only some users may read
// (/etc/shadow, private keys) is still asked, judged by the file's mode,
// since riot may run as root; so is anything in the home directory or a
// protected path, wherever those are.

// systemFileDirs hold the files a read-only call reads without asking.
var systemFileDirs = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/etc", "/var/lib", "/nix/store", "/snap",
}

// systemTreeDirs hold the directories a read-only call reads without
// asking. A directory may be read recursively (`grep -r`), which reaches
// every file below it whatever its mode when riot runs as root: /etc,
// /opt and /var/lib hold keys and databases (WireGuard, NetworkManager,
// letsencrypt), so their directories are still asked.
var systemTreeDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/nix/store", "/snap"}

// procFiles are the files of /proc that describe the machine, the same for
// every process. The rest of /proc names processes (ErrProcess).
var procFiles = []string{
	"/proc/cpuinfo", "/proc/meminfo", "/proc/version", "/proc/loadavg", "/proc/uptime", "/proc/stat", "/proc/filesystems",
}

// systemSecrets are never read without asking, whatever their mode says:
// a mode can be loosened by mistake, and these are what an attacker wants.
// Each is the prefix of the paths it names (isSystemSecret).
var systemSecrets = []string{"/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/ssl/private", "/etc/ssh/ssh_host_"}

// SystemSecrets are the prefixes of the system's secret paths: the chain
// asks before a read of one, and the sandbox hides them from every command
// whose decision did not name them (core). A copy.
func SystemSecrets() []string { return slices.Clone(systemSecrets) }

// systemRead reports whether a read of s, by a read-only call, needs no
// question although it is outside the roots: its resolved path is a
// system file (or a directory below systemTreeDirs) that every user may
// read, through directories every user may search, and neither form of it
// is a known secret, in the home directory or protected. Any error reading
// a mode answers no.
func (p *Policy) systemRead(s subject) bool {
	path := s.physical
	if path == "" || s.Access != Read {
		return false
	}
	for _, form := range []string{s.lexical, path} {
		if withinAny(form, p.homeRoots()) || p.protectedBy(form) != "" || isSystemSecret(form) {
			return false
		}
	}
	dirOK := slices.ContainsFunc(systemTreeDirs, func(d string) bool { return within(path, d) })
	if !dirOK && !underAny(path, systemFileDirs) && !slices.Contains(procFiles, path) {
		return false
	}
	fi, err := p.fs.Lstat(path)
	if err != nil || fi.Mode().Perm()&0o004 == 0 {
		return false
	}
	switch {
	case fi.Mode().IsRegular():
	case fi.IsDir() && dirOK && fi.Mode().Perm()&0o001 != 0:
	default:
		return false // a symlink the resolution did not follow, a device, a socket, a directory that may hold secrets
	}
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		fi, err := p.fs.Lstat(dir)
		if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o001 == 0 {
			return false
		}
		if dir == "/" {
			return true
		}
	}
}

// homeRoots are the home directory's forms, as roots.
func (p *Policy) homeRoots() []resolved {
	out := make([]resolved, 0, len(p.homes))
	for _, h := range p.homes {
		out = append(out, resolved{lexical: h, physical: h})
	}
	return out
}

// underAny reports whether path is strictly below one of dirs.
func underAny(path string, dirs []string) bool {
	return slices.ContainsFunc(dirs, func(d string) bool { return strings.HasPrefix(path, d+"/") })
}

// isSystemSecret reports whether path is one of systemSecrets, a name that
// starts with one (/etc/shadow-, /etc/sudoers.d/x, a host key and its
// .pub), or a path that holds one (a read of /etc/ssl lists the private
// directory).
func isSystemSecret(path string) bool {
	return slices.ContainsFunc(systemSecrets, func(sec string) bool {
		return strings.HasPrefix(path, sec) || within(sec, path)
	})
}
