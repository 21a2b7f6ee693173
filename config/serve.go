package config

import "time"

// Serve is the [serve] table: how `riot serve` session hosts behave.
type Serve struct {
	// IdleTimeout is how long a session host waits without a turn before
	// it exits, killing its plugins and their background jobs.
	IdleTimeout time.Duration
	// Daemon makes `riot run --session` and `riot call --session` start a
	// session host when none is running, as --daemon does.
	Daemon bool
}

// DefaultIdleTimeout is a session host's idle timeout unless [serve] sets one.
const DefaultIdleTimeout = 30 * time.Minute

type serveLayer struct {
	IdleTimeout *duration `toml:"idle_timeout"`
	Daemon      *bool     `toml:"daemon"`
}

var serveKeys = []string{"idle_timeout", "daemon"}

// applyServe applies one layer's [serve] table: a later layer's key wins.
func (c *Config) applyServe(l *parsedLayer) {
	if l.Serve == nil {
		return
	}
	if l.Serve.IdleTimeout != nil {
		c.Serve.IdleTimeout = l.Serve.IdleTimeout.Duration
		c.Sources["serve.idle_timeout"] = l.at("serve", "idle_timeout")
	}
	if l.Serve.Daemon != nil {
		c.Serve.Daemon = *l.Serve.Daemon
		c.Sources["serve.daemon"] = l.at("serve", "daemon")
	}
}
