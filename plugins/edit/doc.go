// Package edit is riot's Edit and Write tools: Edit replaces exact text in
// a file, Write creates a file or replaces one whole.
//
// It owns read-before-edit: a file changes only if the session's records
// (plugin/filestate: what Read showed, what Edit and Write last wrote) say
// the model has seen it as it is now; every other case is refused with its
// own reason, and the file is left untouched. It owns the matching of
// old_string (exact, or line by line against the file's own \r\n or \n
// endings), the hints for a string not found or found more than once,
// atomic replacement in the file's own directory, opened once without
// following symlinks, checked against the writes the chain allowed and
// locked against other riot writers, with its mode kept, and the snippet
// and structured diff of a change. Whether a call may write at all is the core's chain:
// the tools declare the path as a write subject.
package edit
