// Package memo keeps what riot printed for an invocation whose output is a
// function of files and of the invocation alone (`riot version`, `riot
// tools`), with a snapshot of those files, so that the CLI's quick path
// (package quick) prints it again while none of them changed, without
// initialising riot's libraries or reading the config.
//
// An entry is trusted only as far as fileid trusts a snapshot: every path
// the output depended on, looked at after the output was made, none
// changed since the invocation began nor within fileid.RacyWindow before
// it (Store), and each as it was when the entry is used (Load). Anything
// else is a miss, and the command runs whole.
//
// Package quick loads entries from an init function that must run before
// riot's libraries initialise, and Go initialises a package only once
// everything it imports is; encoding/json, crypto/sha256 and strings come
// late in that order (quick's doc). So memo imports none of them, and an
// entry is a few lines of Go-quoted strings and numbers (format.go) rather
// than JSON.
package memo

import (
	"errors"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/riot-tools/riot/internal/fileid"
)

// Dir is where the entries of stateDir live.
func Dir(stateDir string) string { return path.Join(stateDir, "quick") }

// Key is what an invocation is, for an entry: the executable, the working
// directory, the environment the command reads (riotenv.ConfigEnv), and
// the arguments. Two invocations with equal keys and unchanged files print
// the same.
type Key struct {
	Exe  string
	Dir  string
	Env  []string
	Args []string
}

func (k Key) equal(o Key) bool {
	return k.Exe == o.Exe && k.Dir == o.Dir && slices.Equal(k.Env, o.Env) && slices.Equal(k.Args, o.Args)
}

// name is the file of k's entry: a digest, so that any key makes a short,
// safe name. FNV, not a cryptographic hash: an entry holds its key, which
// Load compares whole, so two keys of one name only share a file.
func (k Key) name() string {
	h := fnv.New64a()
	for _, list := range [][]string{{k.Exe, k.Dir}, k.Env, k.Args} {
		_, _ = h.Write(strconv.AppendInt(nil, int64(len(list)), 10))
		for _, s := range list {
			_, _ = h.Write(strconv.AppendQuote(nil, s))
		}
	}
	return strconv.FormatUint(h.Sum64(), 16) + ".memo"
}

// Load returns what the invocation k printed, if an entry for k exists in
// dir and every file it depended on is as it was.
func Load(dir string, k Key, now time.Time) ([]byte, bool) {
	data, ok := readPrivate(dir, k.name())
	if !ok {
		return nil, false
	}
	got, snap, stdout, ok := decode(data)
	if !ok || !got.equal(k) || len(snap.Paths) == 0 || !snap.Unchanged(now) {
		return nil, false
	}
	return stdout, true
}

// readPrivate reads the file name in dir when both are the user's alone:
// an entry is printed as riot's own output (a tools[] listing an agent
// sends to its model), so one that another user could have written is a
// miss, as a session host's socket they could write is refused.
func readPrivate(dir, name string) ([]byte, bool) {
	if info, err := os.Lstat(dir); err != nil || !info.IsDir() || !private(info) {
		return nil, false
	}
	f, err := os.Open(path.Join(dir, name))
	if err != nil {
		return nil, false
	}
	defer func() { _ = f.Close() }()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() || !private(info) {
		return nil, false
	}
	data, err := io.ReadAll(f)
	return data, err == nil
}

// private reports whether the file info describes is the user's and no
// one else can write it.
func private(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid() && info.Mode().Perm()&0o022 == 0
}

// Store records that k printed stdout, made from the files at paths by an
// invocation that began at start. It stores nothing, and returns ErrRacy,
// when a file changed after start or within fileid.RacyWindow before it:
// the output may not be what that file makes now. A path absent when
// Store looks may have been removed after the invocation read it, which
// only its directory shows, so the directory of each such path must not
// have changed either. A store that fails is only a miss later.
func Store(dir string, k Key, paths []string, start time.Time, stdout []byte) error {
	snap := fileid.Take(slices.Clone(paths), start)
	if snap.Racy || fileid.Take(dirsOfAbsent(snap), start).Racy {
		return ErrRacy
	}
	data := encode(k, snap, stdout)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path.Join(dir, k.name()))
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}

// ErrRacy is Store's refusal of a snapshot it cannot trust.
var ErrRacy = errors.New("a file changed too recently to be trusted by its identity")

// dirsOfAbsent are the directories of the absolute paths snap found
// absent, each once.
func dirsOfAbsent(snap fileid.Snapshot) []string {
	var dirs []string
	for i, p := range snap.Paths {
		if snap.Looks[i].Err != "" && path.IsAbs(p) && !slices.Contains(dirs, path.Dir(p)) {
			dirs = append(dirs, path.Dir(p))
		}
	}
	return dirs
}

// Prune removes the entries of dir written longer than age ago: a key
// holds a working directory and arguments, and those come and go. An
// entry still in use is written again by the next invocation that misses.
func Prune(dir string, now time.Time, age time.Duration) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		if now.Sub(info.ModTime()) > age {
			_ = os.Remove(path.Join(dir, e.Name()))
		}
	}
}
