// Package atomicfile is riot's one way to replace a file on disk: every
// state, manifest cache, config and spilled-result write goes through it.
// It writes a temporary file beside the target, fsyncs it, renames it over
// the target and fsyncs the directory (github.com/google/renameio/v2), so
// a reader or a crash sees the old file or the new one, never a mix, and
// two processes writing one path never interleave their bytes.
package atomicfile

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// Write replaces path with data, making its directory (0700) if needed. A
// new file gets perm; an existing one keeps its permissions.
func Write(path string, data []byte, perm os.FileMode) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	defer f.Cleanup()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}

// File is a file being written; it replaces its target at Commit and is
// discarded by Cleanup.
type File struct {
	*renameio.PendingFile
	dir string
}

// Create starts a replacement of path, making its directory (0700) if
// needed. Call Commit when it is complete, and Cleanup in every case.
func Create(path string, perm os.FileMode) (*File, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	// The temporary file goes beside the target: renameio's default probes
	// the system's temporary directory with files of its own at every call.
	pf, err := renameio.NewPendingFile(path, renameio.WithTempDir(dir), renameio.WithPermissions(perm), renameio.WithExistingPermissions())
	if err != nil {
		return nil, err
	}
	return &File{PendingFile: pf, dir: dir}, nil
}

// Commit fsyncs the file, renames it over its target and fsyncs the
// directory, so the rename itself survives a crash.
func (f *File) Commit() error {
	if err := f.CloseAtomicallyReplace(); err != nil {
		return err
	}
	d, err := os.Open(f.dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}

// Cleanup removes the temporary file unless Commit succeeded.
func (f *File) Cleanup() { _ = f.PendingFile.Cleanup() }
