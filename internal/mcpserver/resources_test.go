package mcpserver

import "testing"

func TestCallIDOK(t *testing.T) {
	for id, want := range map[string]bool{
		"mcp_0123abcd": true, "toolu_01-A.b": true, "a": true,
		"": false, ".hidden": false, "..": false, "a/b": false, `a\b`: false, "a b": false, "a%2Fb": false, "é": false,
		string(make([]byte, 201)): false,
	} {
		if got := callIDOK(id); got != want {
			t.Errorf("callIDOK(%q) = %v, want %v", id, got, want)
		}
	}
	long := ""
	for range 200 {
		long += "a"
	}
	if !callIDOK(long) || callIDOK(long+"a") {
		t.Error("the 200-character limit is off")
	}
}

func TestResultURI(t *testing.T) {
	if got := resultURI("s 1", "mcp_1"); got != "riot://results/s%201/mcp_1" {
		t.Fatalf("resultURI = %q", got)
	}
}
