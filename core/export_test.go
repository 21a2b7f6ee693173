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
