//go:build !riot_test_blind_analyzer

package bash

import "github.com/riot-tools/riot/plugin"

// bashHandler serves Bash with its analysis.
func bashHandler(b *Bash) plugin.Handler { return plugin.New[Input](b) }
