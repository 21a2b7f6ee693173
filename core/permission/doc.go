// Package permission owns riot's permission chain: parsing and matching
// the allow, ask and deny rules (Claude Code syntax), the workspace fence
// and protected paths, the modes, the auto-mode classifier, the prompt
// that resolves an Ask, and the messages the model gets when a call is not
// run. The host builds one Policy per session and asks it to Decide each
// prepared call; tools only declare their subjects, and every rule is
// matched here.
//
// docs/permissions.md describes the chain for users.
package permission
