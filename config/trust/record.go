package trust

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/renameio/v2"
	"golang.org/x/sys/unix"
)

// FileName is the record's name in the user's riot config directory.
const FileName = "trusted.json"

// version is the format of the record; another one is not read.
const version = 1

// Entry is one workspace in the record.
type Entry struct {
	// Dir is the workspace's real path.
	Dir string `json:"dir"`
	// Trusted says the workspace's own config applies in full.
	Trusted bool `json:"trusted"`
	// Declined says the user chose not to trust it when asked, so that
	// riot does not ask again.
	Declined bool `json:"declined,omitempty"`
	// Local is the SHA-256, in hex, of the .riot/config.local.toml riot
	// wrote for the user's "always allow" answers in this workspace while
	// it was not trusted: that file, byte for byte, is the user's own.
	Local string `json:"local_sha256,omitempty"`
	// Files are the SHA-256 sums, in hex, of the workspace's own files
	// that can loosen checks or run code, by their path relative to Dir,
	// as they were when the user trusted the workspace (or as riot itself
	// later wrote them on the user's answer, Store.Amend). A file whose
	// content has another sum, or that is not listed (it did not exist
	// then), may only tighten. Nil (omitted) in a trusted entry means it was
	// trusted before riot kept sums: no file is vouched for until the user
	// runs riot trust again. It is written even when empty, which is how
	// "trusted with no such file" differs from that.
	Files map[string]string `json:"files,omitzero"`
	// At is when the user last decided.
	At time.Time `json:"at"`
}

type record struct {
	Version    int     `json:"version"`
	Workspaces []Entry `json:"workspaces"`
}

// decode reads the record's text. An entry whose path is not absolute,
// clean and valid UTF-8, or whose Local is not a SHA-256, is dropped: no
// Key or file can equal it, and keeping it would only let a hand edit look
// like trust.
func decode(data []byte) ([]Entry, error) {
	var r record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, errors.New("it is not valid JSON")
	}
	if r.Version != version {
		return nil, fmt.Errorf("its version is %d, and this riot reads version %d", r.Version, version)
	}
	return slices.DeleteFunc(r.Workspaces, func(e Entry) bool { return !validDir(e.Dir) || !validSum(e.Local) || !validFiles(e.Files) }), nil
}

// Compiled on first use, not at start: riot links every package, so each
// package's init runs before any command.
var sha256Hex = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{64}$`) })

func validSum(sum string) bool { return sum == "" || sha256Hex().MatchString(sum) }

// validFiles reports whether every name is a clean relative path inside
// the workspace and every sum a SHA-256.
func validFiles(files map[string]string) bool {
	for name, sum := range files {
		if !filepath.IsLocal(name) || filepath.Clean(name) != name || !utf8.ValidString(name) || sum == "" || !validSum(sum) {
			return false
		}
	}
	return true
}

func validDir(dir string) bool {
	return filepath.IsAbs(dir) && filepath.Clean(dir) == dir && utf8.ValidString(dir)
}

func encode(entries []Entry) ([]byte, error) {
	if entries == nil {
		entries = []Entry{}
	}
	data, err := json.MarshalIndent(record{Version: version, Workspaces: entries}, "", "  ")
	return append(data, '\n'), err
}

// read returns the record's entries; a record that does not exist is
// empty.
func (s Store) read() ([]Entry, error) {
	data, err := os.ReadFile(s.File)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &RecordError{File: s.File, Msg: "it cannot be read: " + errText(err)}
	}
	entries, err := decode(data)
	if err != nil {
		return nil, &RecordError{File: s.File, Msg: err.Error()}
	}
	return entries, nil
}

// update changes the record under an exclusive lock, so that two riot
// processes deciding at once both keep their entry, and replaces it
// through a rename, so that a crash leaves the old record or the new one.
func (s Store) update(change func([]Entry) []Entry) error {
	return s.updateErr(func(entries []Entry) ([]Entry, error) { return change(entries), nil })
}

// updateErr is update with a change that can fail, which leaves the
// record as it was.
func (s Store) updateErr(change func([]Entry) ([]Entry, error)) error {
	if err := os.MkdirAll(filepath.Dir(s.File), 0o755); err != nil {
		return &RecordError{File: s.File, Msg: "its directory cannot be made: " + errText(err)}
	}
	lock, err := os.OpenFile(s.File+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return &RecordError{File: s.File, Msg: "its lock cannot be opened: " + errText(err)}
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		return &RecordError{File: s.File, Msg: "it cannot be locked: " + errText(err)}
	}
	entries, err := s.read()
	if err != nil {
		return err
	}
	entries, err = change(entries)
	if err != nil {
		return err
	}
	data, err := encode(entries)
	if err != nil {
		return &RecordError{File: s.File, Msg: "it cannot be encoded: " + errText(err)}
	}
	if err := renameio.WriteFile(s.File, data, 0o600); err != nil {
		return &RecordError{File: s.File, Msg: "it cannot be written: " + errText(err)}
	}
	return nil
}

// RecordError is a record that cannot be read or written.
type RecordError struct {
	File string
	Msg  string
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("the trust record %s: %s", e.File, e.Reason())
}

// Reason is the message without the file, and what to do.
func (e *RecordError) Reason() string {
	return e.Msg + "; fix or delete it (riot trust DIR writes a new one)"
}

// errText is the system's reason without the path, which the message
// already names.
func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err.Error()
	}
	return err.Error()
}
