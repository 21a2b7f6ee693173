package permission

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Elicit asks the user on the terminal for what an MCP server's
// elicitation/create requests: first whether to answer at all, then each
// field of its flat schema. Anything but a clear yes declines, and an
// answer that does not fit a field's type declines too: a server never
// gets a value the user did not give.
func (t *TTYPrompter) Elicit(ctx context.Context, from, message string, schema json.RawMessage) (string, map[string]any, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.once.Do(func() {
		t.lines = make(chan string, 16)
		go t.read()
	})
	var sch struct {
		Properties map[string]struct {
			Type        string   `json:"type"`
			Title       string   `json:"title"`
			Description string   `json:"description"`
			Enum        []string `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(schema, &sch)
	line := func(prompt string) (string, bool, error) {
		if _, err := io.WriteString(t.Out, prompt); err != nil {
			return "", false, err
		}
		select {
		case <-ctx.Done():
			return "", false, ctx.Err()
		case l, ok := <-t.lines:
			return strings.TrimSpace(l), ok, nil
		}
	}
	Asking(ctx)
	ans, ok, err := line(fmt.Sprintf("\nriot: %s asks: %s\nAnswer it? Type y or n, then Enter: ", from, message))
	if err != nil || !ok || !slices.Contains([]string{"y", "yes"}, strings.ToLower(ans)) {
		t.say("riot: declined.\n")
		return "decline", nil, err
	}
	names := make([]string, 0, len(sch.Properties))
	for n := range sch.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	content := map[string]any{}
	for _, n := range names {
		p := sch.Properties[n]
		label := n
		if p.Title != "" {
			label = p.Title
		}
		hint := p.Type
		if len(p.Enum) > 0 {
			hint = "one of " + strings.Join(p.Enum, ", ")
		}
		v, ok, err := line(fmt.Sprintf("%s (%s): ", label, hint))
		if err != nil || !ok {
			t.say("riot: declined.\n")
			return "decline", nil, err
		}
		if v == "" {
			if slices.Contains(sch.Required, n) {
				t.say("riot: declined (a required field was left empty).\n")
				return "decline", nil, nil
			}
			continue
		}
		val, fits := fieldValue(p.Type, p.Enum, v)
		if !fits {
			t.say(fmt.Sprintf("riot: declined (%q is not a %s).\n", v, hint))
			return "decline", nil, nil
		}
		content[n] = val
	}
	return "accept", content, nil
}

func fieldValue(typ string, enum []string, v string) (any, bool) {
	switch {
	case len(enum) > 0:
		return v, slices.Contains(enum, v)
	case typ == "boolean":
		b, err := strconv.ParseBool(v)
		return b, err == nil
	case typ == "integer":
		i, err := strconv.ParseInt(v, 10, 64)
		return i, err == nil
	case typ == "number":
		f, err := strconv.ParseFloat(v, 64)
		return f, err == nil
	default:
		return v, true
	}
}
