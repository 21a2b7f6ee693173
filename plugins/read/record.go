package read

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"io/fs"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/filestate"
)

// seen reads a file while hashing every byte read, so that the record of
// what Read showed describes exactly the bytes it read, through one open
// file: a file changed between a stat and a second open cannot be
// recorded as seen.
type seen struct {
	info fs.FileInfo
	r    io.Reader
	h    hash.Hash
	n    int64
}

func newSeen(info fs.FileInfo, r io.Reader) *seen {
	return &seen{info: info, r: r, h: sha256.New()}
}

func (s *seen) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.h.Write(p[:n])
	s.n += int64(n)
	return n, err
}

// record adds to out the record of the file at abs. A file over
// filestate.MaxBytes is recorded without a hash, which vouches for
// nothing; below it, the rest of the file not shown is read into the hash.
func (s *seen) record(out plugin.Outcome, env *plugin.Env, abs string, whole bool) plugin.Outcome {
	rec := filestate.Record{Size: s.info.Size(), ModTime: s.info.ModTime().UnixNano(), Whole: whole}
	if s.info.Size() <= filestate.MaxBytes {
		_, err := io.Copy(io.Discard, io.LimitReader(s, filestate.MaxBytes+1-s.n))
		if err == nil && s.n <= filestate.MaxBytes {
			rec.SHA256 = hex.EncodeToString(s.h.Sum(nil))
		}
	}
	clock := env.Clock
	if clock == nil {
		clock = plugin.SystemClock{}
	}
	rec.At = clock.Now().UnixNano()
	return filestate.Put(out, env, filestate.Canonical(abs), rec)
}
