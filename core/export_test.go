package core

// PrepareExchanges is how many Prepare exchanges the host made for calls
// of tool.
func PrepareExchanges(h *Host, tool string) int64 {
	t, ok := h.lookup(tool)
	if !ok {
		return -1
	}
	return t.prepares.Load()
}

// ObserveGroups has f see, before they run, the ids of each group of calls
// the host's turns run, and which of them are sent with a guessed answer.
// It is set before the host's first turn.
func ObserveGroups(h *Host, f func(ids []string, guessed []bool)) {
	h.groupSeen = func(group []*call) {
		ids, guessed := make([]string, len(group)), make([]bool, len(group))
		for i, c := range group {
			ids[i], guessed[i] = c.use.ID, c.expect != nil
		}
		f(ids, guessed)
	}
}

// SandboxProbed reports whether the host has checked, or begun to check,
// whether bwrap works, once the probe a turn started is done.
func SandboxProbed(h *Host) bool {
	h.sbox.probing.Wait()
	return h.sbox.probed.Load()
}

// StartNeeded is what a turn of uses starts before its first call: their
// plugins, and the sandbox's probe if a call may need it.
func StartNeeded(h *Host, uses []ToolUse) { h.startNeeded(uses) }

// PluginRunning reports whether the host has a process of the plugin
// named name running, or starting.
func PluginRunning(h *Host, name string) bool {
	for _, p := range h.plugins {
		if p.spec.Name == name {
			p.mu.Lock()
			defer p.mu.Unlock()
			return p.client != nil || p.starting != nil
		}
	}
	return false
}
