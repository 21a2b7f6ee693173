package permission

// DenyReadGlobs are the absolute globs of the deny rules that match reads
// (Read(...) rules, which cover every tool's reads), in both forms of
// their anchor directory. The sandbox hides what they match, so that a read
// the analysis missed finds nothing. A pattern that starts with /** matches
// at any depth.
func (p *Policy) DenyReadGlobs() []string {
	var out []string
	for _, c := range p.deny {
		if readRuleTools[c.Tool] && c.globs != nil {
			out = append(out, c.globs...)
		}
	}
	return out
}
