package core

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/riot-tools/riot/shared"
	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// TestAnswerTakeWithAGuess: an answer that is the guess but for its
// description starts the call; any other that accepts the input misses,
// and then only an empty failed Final may follow: output, a successful
// Final, a message, state or a UI payload after it break the protocol, as
// output after a rejection does. A rejection is taken whatever the guess.
func TestAnswerTakeWithAGuess(t *testing.T) {
	guess := &toolv1.PrepareResponse{ReadOnly: true, ConcurrencySafe: true}
	right := answer{c: &call{}, expect: guess}
	if took, err := right.take(preparedEvent(&toolv1.PrepareResponse{Describe: "Noop", ReadOnly: true, ConcurrencySafe: true})); !took || err != nil || !right.started() || right.missed || right.c.result.Describe != "Noop" {
		t.Fatalf("the guessed answer: took %v, %v; started %v, missed %v", took, err, right.started(), right.missed)
	}
	if _, err := right.take(chunkEvent); err != nil {
		t.Errorf("output after the guessed answer: %v", err)
	}

	notRun := &toolv1.CallEvent{Event: &toolv1.CallEvent_Final{Final: &toolv1.Final{Status: toolv1.Status_STATUS_FAILED}}}
	after := map[string]struct {
		ev  *toolv1.CallEvent
		why string
	}{
		"output":        {chunkEvent, "output after an answer to the check of the input other than the one riot expected"},
		"progress":      {&toolv1.CallEvent{Event: &toolv1.CallEvent_Progress{Progress: &toolv1.Progress{Message: "m"}}}, "output after an answer"},
		"a success":     {finalEvent, "a call that reports a result after an answer"},
		"no status":     {&toolv1.CallEvent{Event: &toolv1.CallEvent_Final{Final: &toolv1.Final{}}}, ""},
		"a message":     {&toolv1.CallEvent{Event: &toolv1.CallEvent_Final{Final: &toolv1.Final{Status: toolv1.Status_STATUS_FAILED, Message: "m"}}}, "a call that reports a result"},
		"state":         {&toolv1.CallEvent{Event: &toolv1.CallEvent_Final{Final: &toolv1.Final{Status: toolv1.Status_STATUS_FAILED, StateUpdates: map[string]string{"k": "v"}}}}, "a call that reports a result"},
		"a UI payload":  {&toolv1.CallEvent{Event: &toolv1.CallEvent_Final{Final: &toolv1.Final{Status: toolv1.Status_STATUS_FAILED, UiPayload: []byte("{}")}}}, "a call that reports a result"},
		"the empty end": {notRun, ""},
		"a second":      {preparedEvent(guess), "a second answer"},
	}
	for name, tc := range after {
		wrong := answer{c: &call{}, expect: guess}
		a := &toolv1.PrepareResponse{Describe: "Mark 2"}
		if took, err := wrong.take(preparedEvent(a)); !took || err != nil || !wrong.missed || wrong.started() || wrong.rejected() || wrong.c.prep != a {
			t.Fatalf("a wrong guess: took %v, %v; missed %v, started %v", took, err, wrong.missed, wrong.started())
		}
		_, err := wrong.take(tc.ev)
		switch {
		case tc.why == "" && err != nil:
			t.Errorf("%s after a miss: %v, want it taken", name, err)
		case tc.why != "" && (err == nil || !strings.Contains(err.Error(), tc.why)):
			t.Errorf("%s after a miss: %v, want %q", name, err, tc.why)
		}
	}
	r := answer{c: &call{}, expect: guess}
	if took, err := r.take(preparedEvent(&toolv1.PrepareResponse{Rejected: "Fix n.", ReadOnly: true})); !took || err != nil || !r.rejected() || r.missed || r.started() || r.c.prep != nil {
		t.Fatalf("a rejection under a guess: took %v, %v", took, err)
	}
}

// FuzzAnswerTake: for any guess and any answer, both as the wire may carry
// them, and any event after, taking never panics; a call starts exactly
// when the answer accepts the input and is the guess but for its
// description; and after a miss nothing but an empty failed Final is
// taken. SameAnswer ignores descriptions only, both ways.
func FuzzAnswerTake(f *testing.F) {
	m := func(p proto.Message) []byte { b, _ := proto.Marshal(p); return b }
	ro := m(&toolv1.PrepareResponse{ReadOnly: true, ConcurrencySafe: true})
	f.Add(ro, m(&toolv1.PrepareResponse{Describe: "d", ReadOnly: true, ConcurrencySafe: true}), m(&toolv1.CallEvent{Event: &toolv1.CallEvent_Final{Final: &toolv1.Final{Status: toolv1.Status_STATUS_OK}}}))
	f.Add(ro, m(&toolv1.PrepareResponse{Describe: "d"}), m(&toolv1.CallEvent{Event: &toolv1.CallEvent_Final{Final: &toolv1.Final{Status: toolv1.Status_STATUS_FAILED}}}))
	f.Add(ro, m(&toolv1.PrepareResponse{Rejected: "no"}), m(chunkEvent))
	f.Add(m(&toolv1.PrepareResponse{Subjects: []*toolv1.Subject{{Value: "/x"}}}), append(m(&toolv1.PrepareResponse{Subjects: []*toolv1.Subject{{Value: "/x"}}}), 0xf8, 0x01, 0x01), m(finalEvent))
	f.Fuzz(func(t *testing.T, guessBytes, answerBytes, nextBytes []byte) {
		guess, ans, next := &toolv1.PrepareResponse{}, &toolv1.PrepareResponse{}, &toolv1.CallEvent{}
		if proto.Unmarshal(guessBytes, guess) != nil || proto.Unmarshal(answerBytes, ans) != nil || proto.Unmarshal(nextBytes, next) != nil {
			return
		}
		guess.Describe, guess.Rejected = "", "" // as the host keeps it
		same := shared.SameAnswer(ans, guess)
		if same != shared.SameAnswer(guess, ans) {
			t.Fatal("SameAnswer is not symmetric")
		}
		if !shared.SameAnswer(ans, ans) {
			t.Fatal("an answer is not the same as itself")
		}
		other := proto.CloneOf(ans)
		other.Describe += "x"
		if !shared.SameAnswer(ans, other) {
			t.Fatal("a description changed the comparison")
		}
		a := answer{c: &call{}, expect: guess}
		took, err := a.take(preparedEvent(ans))
		if !took || err != nil {
			t.Fatalf("the first answer: took %v, %v", took, err)
		}
		accepts := ans.GetRejected() == ""
		if a.started() != (accepts && same) || a.missed != (accepts && !same) || a.rejected() == accepts {
			t.Fatalf("accepts %v, same %v: started %v, missed %v, rejected %v", accepts, same, a.started(), a.missed, a.rejected())
		}
		if a.started() && (a.c.prep != ans || a.c.result.Describe != ans.GetDescribe()) {
			t.Fatal("a started call does not hold its answer")
		}
		took, err = a.take(next)
		if took {
			t.Fatal("an event after the answer taken as the answer")
		}
		f := next.GetFinal()
		emptyFailed := f != nil && f.GetStatus() != toolv1.Status_STATUS_OK && f.GetMessage() == "" && len(f.GetStateUpdates()) == 0 && len(f.GetUiPayload()) == 0
		if a.missed && next.GetPrepared() == nil && (err == nil) != emptyFailed {
			t.Fatalf("after a miss, %v: %v", next, err)
		}
	})
}
