package search

import "io/fs"

// listFile records a file a ListFiles walk found, with its modification
// time, without opening it.
func (e *engine) listFile(path string, de fs.DirEntry) {
	info, err := de.Info()
	if err != nil {
		// It vanished since the directory was read.
		e.stats.unreadable.Add(1)
		return
	}
	e.stats.searched.Add(1)
	e.col.add(File{Path: e.display(path), ModTime: info.ModTime().UnixNano()})
}
