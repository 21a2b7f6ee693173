// Package ident says who an invocation of riot is to a session host: its
// build, and the inputs its config is made of besides the files. A host
// and its clients each compute these here, the same way.
package ident

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"

	"github.com/riot-tools/riot/cmd/riot/internal/riotenv"
	"github.com/riot-tools/riot/internal/fileid"
)

// Version is riot's release version.
const Version = "0.1.0"

// Build identifies this riot build, so that a client and a session host
// of different builds refuse to talk: the release, the Go toolchain and
// the identity of the executable (device, inode, size, modification
// time), which a rebuild or an upgrade changes. It costs one stat; two
// copies of one build count as different builds, which only makes a
// client run its turn itself.
func Build() string {
	id := "riot " + Version + " (" + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")"
	exe, err := os.Executable()
	if err != nil {
		return id + " exe unknown"
	}
	f, err := fileid.Stat(exe)
	if err != nil {
		return id + " exe unknown"
	}
	return id + " exe " + strconv.FormatUint(f.Dev, 10) + ":" + strconv.FormatUint(f.Ino, 10) + ":" +
		strconv.FormatInt(f.Size, 10) + "@" + strconv.FormatInt(f.MtimeNs, 10)
}

// Flags are the command-line flags the config is made of.
type Flags struct {
	Mode             string
	Allow, Deny, Ask []string
	AddDirs          []string
	// ConfigFile is --config's file, absolute, or "".
	ConfigFile string
}

// Inputs digests what an invocation's config is made of besides its files,
// which a host rereads before each turn: the flags, and the environment
// the config is read with (riotenv.ConfigEnv). A client and its host
// compare theirs; equal inputs and the same files make the same config.
func Inputs(f Flags, environ []string) string {
	env := riotenv.ConfigEnv(environ)
	slices.Sort(env)
	// Each string length-prefixed and each list counted, so that no two
	// inputs write the same bytes; written directly rather than as JSON,
	// which would build an encoder for each type first, in a client that
	// hashes once and exits.
	h := sha256.New()
	str(h, f.Mode)
	list(h, f.Allow)
	list(h, f.Deny)
	list(h, f.Ask)
	list(h, f.AddDirs)
	str(h, f.ConfigFile)
	list(h, env)
	return hex.EncodeToString(h.Sum(nil)[:12])
}

func str(h hash.Hash, s string) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
	_, _ = h.Write(n[:])
	_, _ = io.WriteString(h, s)
}

func list(h hash.Hash, l []string) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(l)))
	_, _ = h.Write(n[:])
	for _, s := range l {
		str(h, s)
	}
}
