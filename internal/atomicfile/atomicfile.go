// Package atomicfile is riot's one way to replace a file on disk: every
// session state, manifest cache, config and spilled-result write goes
// through it. It writes a temporary file beside the target and renames it
// over the target (github.com/google/renameio/v2), so a reader sees the
// old file or the new one, never a mix, and two processes writing one
// path never interleave their bytes. Commit fsyncs the file and the
// directory, so a crash keeps one of them too; CommitScratch, for spilled
// results, does not.
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
	path, dir string
	renamed   bool
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
	return &File{PendingFile: pf, path: path, dir: dir}, nil
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

// CommitScratch renames the file over its target without fsync: for
// scratch files, such as spilled results, that a crash may lose but a
// reader must never see half written. Fsyncing a spill of a gigabyte
// would hold its call's result for seconds.
func (f *File) CommitScratch() error {
	if err := f.File.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), f.path); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	f.renamed = true
	return nil
}

// Cleanup removes the temporary file unless a commit succeeded.
func (f *File) Cleanup() {
	if !f.renamed {
		_ = f.PendingFile.Cleanup()
	}
}
