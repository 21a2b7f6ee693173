// Package filestate is the record of what a tool saw of a file, kept in the
// host's session state so that stateless plugins share it: Read records
// every file it shows, and Edit and Write check a file against the newest
// record before they change it ("Read it first", "it changed since you
// read it") and record what they wrote. A record is a key of its owner
// plugin's state; other plugins read it through Env.StateOf.
package filestate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/riot-tools/riot/plugin"
)

// ReadPlugin is the plugin whose records Read writes: the builtin "read".
const ReadPlugin = "read"

// MaxBytes is the largest file whose content a record hashes. Edit and
// Write refuse larger files, so a record without a hash never vouches for
// one.
const MaxBytes = 16 << 20

// MaxRecords bounds one plugin's records: every call carries the whole
// session state, so the oldest are dropped past this.
const MaxRecords = 500

// keyPrefix starts every record's key.
const keyPrefix = "file:"

// Record is one observation of a file.
type Record struct {
	Size    int64 `json:"size"`
	ModTime int64 `json:"mtime_ns"`
	// SHA256 is the hex hash of the whole content; "" for a file over
	// MaxBytes.
	SHA256 string `json:"sha256,omitempty"`
	// Whole: every line was shown, not a window of them.
	Whole bool `json:"whole"`
	// At is when it was observed, in Unix nanoseconds: the newest record
	// of a file is the one that counts.
	At int64 `json:"at_ns"`
}

// Observe is the record of a file whose stat is info and whose whole
// content is data, seen at now.
func Observe(info fs.FileInfo, data []byte, whole bool, now time.Time) Record {
	r := Record{Size: info.Size(), ModTime: info.ModTime().UnixNano(), Whole: whole, At: now.UnixNano()}
	if len(data) <= MaxBytes {
		r.SHA256 = Hash(data)
	}
	return r
}

// Hash is the hex SHA-256 of data, as a record keeps it.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Matches reports whether a file now looks as it did in r: same size,
// modification time and content hash. A record without a hash matches
// nothing.
func (r Record) Matches(now Record) bool {
	return r.SHA256 != "" && r.Size == now.Size && r.ModTime == now.ModTime && r.SHA256 == now.SHA256
}

// Canonical is the path a record is kept under: abs with its symlinks
// resolved, so a file read through a link and edited by its target, or the
// other way round, is one file. A path that does not resolve (a file not
// made yet) stays as it is.
func Canonical(abs string) string {
	if p, err := filepath.EvalSymlinks(abs); err == nil {
		return p
	}
	return filepath.Clean(abs)
}

// Key is the state key of path's record; path must be Canonical.
func Key(path string) string { return keyPrefix + path }

func (r Record) encode() string {
	b, _ := json.Marshal(r)
	return string(b)
}

func decode(s string) (Record, bool) {
	var r Record
	if s == "" || json.Unmarshal([]byte(s), &r) != nil {
		return Record{}, false
	}
	return r, true
}

// Latest is the newest record of path (Canonical) among this plugin's own
// and Read's. At a tie this plugin's wins: it records only after changing
// a file, which follows the read it relied on.
func Latest(env *plugin.Env, path string) (Record, bool) {
	own, okOwn := decode(env.State(Key(path)))
	read, okRead := decode(env.StateOf(ReadPlugin, Key(path)))
	switch {
	case okOwn && okRead:
		if read.At > own.At {
			return read, true
		}
		return own, true
	case okOwn:
		return own, true
	default:
		return read, okRead
	}
}

// Put records r for path (Canonical) in o's state updates. When this
// plugin already keeps MaxRecords records, the oldest are dropped.
func Put(o plugin.Outcome, env *plugin.Env, path string, r Record) plugin.Outcome {
	o = o.WithState(Key(path), r.encode())
	type aged struct {
		key string
		at  int64
	}
	var others []aged
	for _, k := range env.StateKeys() {
		if !strings.HasPrefix(k, keyPrefix) || k == Key(path) {
			continue
		}
		rec, _ := decode(env.State(k))
		others = append(others, aged{k, rec.At})
	}
	for len(others) >= MaxRecords {
		oldest := 0
		for i, a := range others {
			if a.at < others[oldest].at {
				oldest = i
			}
		}
		o = o.WithState(others[oldest].key, "")
		others = append(others[:oldest], others[oldest+1:]...)
	}
	return o
}
