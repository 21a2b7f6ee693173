package config

import "time"

// Serve is the [serve] table: how `riot serve` session hosts behave.
type Serve struct {
	// IdleTimeout is how long a session host waits without a turn before
	// it exits, killing its plugins and their background jobs.
	IdleTimeout time.Duration `toml:"idle_timeout" trust:"loosen"`
	// Daemon makes `riot run --session` and `riot call --session` start a
	// session host when none is running, as --daemon does.
	Daemon bool `toml:"daemon" trust:"loosen"`
}
