// Package install gets plugin binaries from their sources: it builds a Go
// package with the user's toolchain, builds a local directory, copies a
// local binary, or downloads a URL checked against the SHA256SUMS beside
// it; it computes what the lock records (the resolved version, the Go
// module's h1: sum, the binary's sha256) and puts the binary in place
// atomically, so a failure leaves the previous binary as it was. What a
// binary serves is for the caller to learn (core.InspectPlugin); the lock
// file is config/lock's.
package install

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"golang.org/x/mod/module"
)

// Kind is the form of a source.
type Kind int

const (
	// GoPackage is a Go main package's import path, built at a version.
	GoPackage Kind = iota + 1
	// LocalDir is a directory on disk holding a Go main package.
	LocalDir
	// LocalBinary is a plugin binary on disk.
	LocalBinary
	// URL is an https:// or file:// URL of a binary or a .tar.gz.
	URL
)

func (k Kind) String() string {
	switch k {
	case GoPackage:
		return "Go package"
	case LocalDir:
		return "local directory"
	case LocalBinary:
		return "local binary"
	case URL:
		return "URL"
	}
	return "unknown"
}

// Source is a parsed source.
type Source struct {
	Kind Kind
	// Raw is the source as written.
	Raw string
	// Path is the absolute path of a local source, or the import path of a
	// Go package.
	Path string
	// URL is a URL source, parsed.
	URL *url.URL
}

// PlatformURL is a URL source with its platform placeholders filled for
// this machine: {os} and {arch} become GOOS and GOARCH, as release files
// are named (riot-tool-x_{os}_{arch}.tar.gz), so one source names the
// binary of every platform and the lock pins each one's sum.
func PlatformURL(raw string) string {
	return strings.NewReplacer("{os}", runtime.GOOS, "{arch}", runtime.GOARCH).Replace(raw)
}

// ParseSource tells which form raw is; a relative local path is relative
// to the workspace.
func ParseSource(raw, workspace string) (Source, error) {
	s := Source{Raw: raw}
	switch {
	case raw == "":
		return s, usageErr("the plugin has no source; write one: a Go package path (example.com/org/repo/cmd/riot-tool-x), a local directory or binary, or an https:// or file:// URL")
	case strings.Contains(raw, "://"):
		u, err := url.Parse(PlatformURL(raw))
		if err != nil || (u.Scheme != "https" && u.Scheme != "file") || u.Path == "" || strings.HasSuffix(u.Path, "/") {
			return s, usageErr(fmt.Sprintf("source %q is not a URL riot installs from: write an https:// or file:// URL of a binary or .tar.gz, with a SHA256SUMS file beside it", raw))
		}
		s.Kind, s.URL = URL, u
		return s, nil
	case filepath.IsAbs(raw) || raw == "." || raw == ".." || strings.HasPrefix(raw, "./") || strings.HasPrefix(raw, "../") || strings.HasPrefix(raw, "~/"):
		p := raw
		if strings.HasPrefix(p, "~/") {
			home, _ := os.UserHomeDir()
			p = filepath.Join(home, p[2:])
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(workspace, p)
		}
		s.Path = filepath.Clean(p)
		info, err := os.Stat(s.Path)
		switch {
		case err != nil:
			return s, usageErr(fmt.Sprintf("source %s does not exist; give an existing directory holding a Go main package, or a plugin binary", s.Path))
		case info.IsDir():
			s.Kind = LocalDir
		case info.Mode().IsRegular():
			s.Kind = LocalBinary
		default:
			return s, usageErr(fmt.Sprintf("source %s is neither a directory nor a regular file", s.Path))
		}
		return s, nil
	}
	// A Go import path: its first element has a dot, as module paths do.
	first, _, _ := strings.Cut(raw, "/")
	if !strings.Contains(first, ".") || module.CheckImportPath(raw) != nil {
		return s, usageErr(fmt.Sprintf("source %q is no form riot knows: write a Go package path (example.com/org/repo/cmd/riot-tool-x), a local path starting with ./ or /, or an https:// or file:// URL", raw))
	}
	s.Kind, s.Path = GoPackage, raw
	return s, nil
}

var majorElem = regexp.MustCompile(`^v[0-9]+$`)

// NameOf is the plugin name a source suggests: its last element without
// riot-tool- and, for a file, without its extension and any _OS_ARCH or
// version suffix.
func NameOf(s Source) string {
	base := s.Path
	if s.Kind == URL {
		base = s.URL.Path
	}
	base = filepath.Base(base)
	if s.Kind == GoPackage && majorElem.MatchString(base) {
		// example.com/x/v2: the element before the major version.
		if i := strings.LastIndex(s.Path, "/"); i > 0 {
			base = filepath.Base(s.Path[:i])
		}
	}
	for _, ext := range []string{".tar.gz", ".tgz"} {
		base = strings.TrimSuffix(base, ext)
	}
	base = strings.TrimPrefix(base, "riot-tool-")
	if s.Kind == URL || s.Kind == LocalBinary {
		if i := strings.IndexAny(base, "_."); i > 0 {
			base = base[:i]
		}
	}
	return strings.ToLower(base)
}
