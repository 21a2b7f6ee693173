package shared

import "strings"

// EphemeralSessionPrefix starts the id of a session that lasts one host: a
// `riot run` or `riot call` without --session. A tool that relies on what
// earlier calls of the session recorded (Edit on Read's record) can then
// tell the model that an earlier invocation's calls are not known.
const EphemeralSessionPrefix = "ephemeral-"

// Ephemeral reports whether session id lasts one host.
func Ephemeral(id string) bool { return strings.HasPrefix(id, EphemeralSessionPrefix) }
