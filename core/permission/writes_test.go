package permission

import (
	"strings"
	"testing"
)

// TestDecisionWrites: a decision carries the call's write paths as it
// resolved them (a symlink followed, a missing tail as written), for
// Edit and Write to write only there; reads, commands and paths that
// could not be resolved are not among them.
func TestDecisionWrites(t *testing.T) {
	e := newEnv(t)
	write(t, e.out+"/target")
	symlink(t, e.out+"/target", e.ws+"/link")
	p := e.policy(t, "bypassPermissions")
	req := Request{Tool: "X", Subjects: []Subject{
		{Kind: PathSubject, Value: e.ws + "/link", Access: Write},
		{Kind: PathSubject, Value: "new/dir/a.go", Access: Write},
		{Kind: PathSubject, Value: e.ws + "/r", Access: Read},
		{Kind: PathSubject, Value: "", Access: Write},
		{Kind: CommandSubject, Value: "cat x"},
	}}
	d := decide(p, req)
	if want := []string{e.out + "/target", e.ws + "/new/dir/a.go"}; strings.Join(d.Writes, " ") != strings.Join(want, " ") {
		t.Errorf("Writes = %q, want %q", d.Writes, want)
	}
	if d := decide(p, readReq(e.ws+"/x")); len(d.Writes) != 0 {
		t.Errorf("a read's Writes = %q", d.Writes)
	}
}
