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
