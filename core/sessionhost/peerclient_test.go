package sessionhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/permission"
)

// clientEnv, set, makes the test binary a client process: it sends the
// hello and calls in the JSON of clientEnv to the socket it names, and
// prints a clientOutcome on stdout. Its prompter answers with the fixed
// answer the request names, or, with "tty", asks on its stdin and stderr
// as riot does on a terminal; with "stop", it asks the host to stop
// instead.
const clientEnv = "RIOT_SESSIONHOST_TEST_CLIENT"

type clientRequest struct {
	Socket string         `json:"socket"`
	Hello  Hello          `json:"hello"`
	Uses   []core.ToolUse `json:"uses"`
	Answer string         `json:"answer"`
}

type clientOutcome struct {
	Results []core.ToolResult `json:"results"`
	// Refused is the host's refusal; Err any other error.
	Refused string `json:"refused"`
	Err     string `json:"err"`
	// Asked is how many prompts came to a fixed-answer client.
	Asked int `json:"asked"`
}

func clientMain() int {
	var req clientRequest
	if err := json.Unmarshal([]byte(os.Getenv(clientEnv)), &req); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var out clientOutcome
	var refused *RefusedError
	var prompter permission.Prompter
	fixed := &answering{}
	switch req.Answer {
	case "stop":
		if err := Stop(req.Socket); errors.As(err, &refused) {
			out.Refused = refused.Reason
		} else if err != nil {
			out.Err = err.Error()
		}
		return report(out)
	case "tty":
		prompter = &permission.TTYPrompter{In: os.Stdin, Out: os.Stderr}
	default:
		a, err := strconv.Atoi(req.Answer)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		fixed.a = permission.Answer(a)
		prompter = fixed
	}
	rs, err := Turn(context.Background(), req.Socket, req.Hello, req.Uses, Handlers{Prompter: prompter})
	switch {
	case errors.As(err, &refused):
		out.Refused = refused.Reason
	case err != nil:
		out.Err = err.Error()
	}
	out.Results, out.Asked = rs, len(fixed.asked)
	return report(out)
}

func report(out clientOutcome) int {
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		return 2
	}
	return 0
}
