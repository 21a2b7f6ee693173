package main

import (
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"os"
)

// buildID identifies this riot build, so that a client and a session host
// of different builds refuse to talk: the version line and the Go build ID
// the linker wrote into the binary (the executable's size and mtime where
// there is none, as on macOS).
func buildID() string {
	id := versionLine()
	exe, err := os.Executable()
	if err != nil {
		return id
	}
	if f, err := elf.Open(exe); err == nil {
		defer func() { _ = f.Close() }()
		if s := f.Section(".note.go.buildid"); s != nil {
			if data, err := s.Data(); err == nil {
				sum := sha256.Sum256(data)
				return id + " build " + hex.EncodeToString(sum[:8])
			}
		}
	}
	if info, err := os.Stat(exe); err == nil {
		return fmt.Sprintf("%s exe %d@%d", id, info.Size(), info.ModTime().UnixNano())
	}
	return id
}
