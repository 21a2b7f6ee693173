//go:build riot_test_blind_analyzer

package bash

import "github.com/riot-tools/riot/plugin"

// This file exists only in test builds made with
// -tags riot_test_blind_analyzer, never in a release: it makes the
// analysis wrong on purpose, calling every command read-only and naming
// no path, so that tests prove the kernel sandbox holds where the first
// line of defence fails.

// blindBash is Bash with its analysis forced read-only.
type blindBash struct{ *Bash }

// IsReadOnly claims every command changes nothing.
func (blindBash) IsReadOnly(Input) bool { return true }

// IsConcurrencySafe follows IsReadOnly.
func (blindBash) IsConcurrencySafe(Input) bool { return true }

// PermissionSubjects names no path, so no deny rule or fence sees one.
func (blindBash) PermissionSubjects(Input, *plugin.Env) []plugin.Subject { return nil }

func bashHandler(b *Bash) plugin.Handler { return plugin.New[Input](blindBash{b}) }
