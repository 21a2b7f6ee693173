package install

import (
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/mod/semver"
)

// Constraint is a version requirement as [plugins.NAME] version writes it:
// an exact version ("v1.2.3"), "latest", or comma-separated conditions
// with Terraform's operators (=, !=, >, >=, <, <=, and ~> for "this
// version and later ones up to the next more significant one").
type Constraint struct {
	raw   string
	exact string
	conds []cond
}

type cond struct {
	op, v string
	// upper bounds ~>: versions below it.
	upper string
}

// ParseConstraint parses a version or constraint; "" is an error, since a
// Go source without a version would build whatever is newest today.
func ParseConstraint(raw string) (Constraint, error) {
	c := Constraint{raw: strings.TrimSpace(raw)}
	switch c.raw {
	case "":
		return c, usageErr(`a Go package source needs a version: write version = "v1.2.3", a constraint such as "~> 1.2", or "latest"`)
	case "latest":
		return c, nil
	}
	if v := canon(c.raw); v != "" && (semver.Canonical(v) == v || strings.HasSuffix(v, "+incompatible")) {
		c.exact = v
		return c, nil
	}
	for _, part := range strings.Split(c.raw, ",") {
		part = strings.TrimSpace(part)
		op := ""
		for _, o := range []string{"~>", ">=", "<=", "!=", ">", "<", "="} {
			if strings.HasPrefix(part, o) {
				op = o
				break
			}
		}
		v := canon(strings.TrimSpace(strings.TrimPrefix(part, op)))
		if op == "" || v == "" {
			return c, usageErr(fmt.Sprintf("version %q is not a version or constraint: write an exact version such as \"v1.2.3\", conditions such as \">= 1.2, < 2.0\" or \"~> 1.2\", or \"latest\"", raw))
		}
		d := cond{op: op, v: v}
		if op == "~>" {
			d.upper = pessimisticUpper(strings.TrimSpace(strings.TrimPrefix(part, op)))
		}
		c.conds = append(c.conds, d)
	}
	return c, nil
}

// canon is s as a semver with a leading v, or "" if it is none.
func canon(s string) string {
	if !strings.HasPrefix(s, "v") {
		s = "v" + s
	}
	if !semver.IsValid(s) {
		return ""
	}
	return s
}

// pessimisticUpper is the bound of ~> v: ~> 1.2 allows up to 2.0, ~> 1.2.3
// up to 1.3.0.
func pessimisticUpper(v string) string {
	v = strings.TrimPrefix(v, "v")
	parts := strings.Split(strings.SplitN(v, "-", 2)[0], ".")
	if len(parts) == 1 {
		return semver.Canonical("v" + parts[0]) // ~> 1 is >= 1; no bound
	}
	keep := parts[:len(parts)-1]
	last, _ := strconv.Atoi(keep[len(keep)-1]) // canon checked it is digits
	keep[len(keep)-1] = strconv.Itoa(last + 1)
	return "v" + strings.Join(keep, ".")
}

func (c Constraint) String() string { return c.raw }

// Exact is the version an exact constraint names, or "".
func (c Constraint) Exact() string { return c.exact }

// Allows reports whether version v meets the constraint. A pre-release
// meets only an exact constraint that names it.
func (c Constraint) Allows(v string) bool {
	if !semver.IsValid(v) {
		return false
	}
	if c.exact != "" {
		// Equal as written: semver ignores build metadata, a pin must not.
		return v == c.exact
	}
	if semver.Prerelease(v) != "" {
		return false
	}
	for _, d := range c.conds {
		cmp := semver.Compare(v, d.v)
		ok := false
		switch d.op {
		case "=":
			ok = cmp == 0
		case "!=":
			ok = cmp != 0
		case ">":
			ok = cmp > 0
		case ">=":
			ok = cmp >= 0
		case "<":
			ok = cmp < 0
		case "<=":
			ok = cmp <= 0
		case "~>":
			ok = cmp >= 0 && (d.upper == semver.Canonical(d.v) || semver.Compare(v, d.upper) < 0)
		}
		if !ok {
			return false
		}
	}
	return true
}

// Newest is the newest of versions the constraint allows, or "".
func (c Constraint) Newest(versions []string) string {
	var ok []string
	for _, v := range versions {
		if c.Allows(v) {
			ok = append(ok, v)
		}
	}
	if len(ok) == 0 {
		return ""
	}
	semver.Sort(ok)
	return ok[len(ok)-1]
}
