package core

import (
	"strings"
	"testing"

	"github.com/riot-tools/riot/shared"
)

// TestAnswerTakeWithAGuess: an answer that is the guess but for its
// description starts the call; any other that accepts the input misses,
// and then only an empty failed Final may follow: output, a successful
// Final, a message, state or a UI payload after it break the protocol, as
// output after a rejection does. A rejection is taken whatever the guess.
func TestAnswerTakeWithAGuess(t *testing.T) {
	guess := &shared.PrepareAnswer{ReadOnly: true, ConcurrencySafe: true}
	right := answer{c: &call{}, expect: guess}
	if took, err := right.take(preparedEvent(&shared.PrepareAnswer{Describe: "Noop", ReadOnly: true, ConcurrencySafe: true})); !took || err != nil || !right.started() || right.missed || right.c.result.Describe != "Noop" {
		t.Fatalf("the guessed answer: took %v, %v; started %v, missed %v", took, err, right.started(), right.missed)
	}
	if _, err := right.take(chunkEvent); err != nil {
		t.Errorf("output after the guessed answer: %v", err)
	}

	notRun := shared.CallEvent{Final: &shared.Final{Status: shared.StatusFailed}}
	after := map[string]struct {
		ev  shared.CallEvent
		why string
	}{
		"output":        {chunkEvent, "output after an answer to the check of the input other than the one riot expected"},
		"progress":      {shared.CallEvent{Progress: &shared.Progress{Message: "m"}}, "output after an answer"},
		"a success":     {finalEvent, "a call that reports a result after an answer"},
		"no status":     {shared.CallEvent{Final: &shared.Final{}}, ""},
		"a message":     {shared.CallEvent{Final: &shared.Final{Status: shared.StatusFailed, Message: "m"}}, "a call that reports a result"},
		"state":         {shared.CallEvent{Final: &shared.Final{Status: shared.StatusFailed, StateUpdates: map[string]string{"k": "v"}}}, "a call that reports a result"},
		"a UI payload":  {shared.CallEvent{Final: &shared.Final{Status: shared.StatusFailed, UIPayload: []byte("{}")}}, "a call that reports a result"},
		"the empty end": {notRun, ""},
		"a second":      {preparedEvent(guess), "a second answer"},
	}
	for name, tc := range after {
		wrong := answer{c: &call{}, expect: guess}
		a := &shared.PrepareAnswer{Describe: "Mark 2"}
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
	if took, err := r.take(preparedEvent(&shared.PrepareAnswer{Rejected: "Fix n.", ReadOnly: true})); !took || err != nil || !r.rejected() || r.missed || r.started() || r.c.prep != nil {
		t.Fatalf("a rejection under a guess: took %v, %v", took, err)
	}
}

// FuzzAnswerTake: for any guess and any answer, unknown fields included,
// and any event after, taking never panics; a call starts exactly when the
// answer accepts the input and is the guess but for its description; and
// after a miss nothing but an empty failed Final is taken. SameAnswer
// ignores descriptions only, both ways.
func FuzzAnswerTake(f *testing.F) {
	const ro, cs = 1, 2
	f.Add(uint8(ro|cs), "", []byte(nil), uint8(ro|cs), "d", []byte(nil), uint8(2), "")
	f.Add(uint8(ro|cs), "", []byte(nil), uint8(0), "d", []byte(nil), uint8(2|1<<2), "")
	f.Add(uint8(ro|cs), "", []byte(nil), uint8(1<<7), "no", []byte(nil), uint8(0), "x")
	f.Add(uint8(1<<5), "/x", []byte(nil), uint8(1<<5), "/x", []byte{0xf8, 0x01, 0x01}, uint8(2), "")
	f.Fuzz(func(t *testing.T, gFlags uint8, gText string, gUnknown []byte, aFlags uint8, aText string, aUnknown []byte, nKind uint8, nText string) {
		guess, ans, next := fuzzAnswer(gFlags, gText, gUnknown), fuzzAnswer(aFlags, aText, aUnknown), fuzzEvent(nKind, nText)
		guess.Describe, guess.Rejected = "", "" // as the host keeps it
		same := shared.SameAnswer(*ans, *guess)
		if same != shared.SameAnswer(*guess, *ans) {
			t.Fatal("SameAnswer is not symmetric")
		}
		if !shared.SameAnswer(*ans, *ans) {
			t.Fatal("an answer is not the same as itself")
		}
		other := *ans
		other.Describe += "x"
		if !shared.SameAnswer(*ans, other) {
			t.Fatal("a description changed the comparison")
		}
		a := answer{c: &call{}, expect: guess}
		took, err := a.take(preparedEvent(ans))
		if !took || err != nil {
			t.Fatalf("the first answer: took %v, %v", took, err)
		}
		accepts := ans.Rejected == ""
		if a.started() != (accepts && same) || a.missed != (accepts && !same) || a.rejected() == accepts {
			t.Fatalf("accepts %v, same %v: started %v, missed %v, rejected %v", accepts, same, a.started(), a.missed, a.rejected())
		}
		if a.started() && (a.c.prep != ans || a.c.result.Describe != ans.Describe) {
			t.Fatal("a started call does not hold its answer")
		}
		took, err = a.take(next)
		if took {
			t.Fatal("an event after the answer taken as the answer")
		}
		f := next.Final
		emptyFailed := f != nil && f.Status != shared.StatusOK && f.Message == "" && len(f.StateUpdates) == 0 && len(f.UIPayload) == 0
		if a.missed && next.Prepared == nil && (err == nil) != emptyFailed {
			t.Fatalf("after a miss, %+v: %v", next, err)
		}
	})
}

// fuzzAnswer is an answer from fuzz input: flags' bits 0 and 1 make it
// read-only and concurrency-safe, bits 2 and 3 are its permission, bit 4
// gives it text as classifier input, bit 5 a path subject of text (bit 6
// a read), and bit 7 makes it a rejection; text is its description.
func fuzzAnswer(flags uint8, text string, unknown []byte) *shared.PrepareAnswer {
	a := &shared.PrepareAnswer{
		Describe: text, ReadOnly: flags&1 != 0, ConcurrencySafe: flags&2 != 0,
		Permission: shared.Permission(flags >> 2 & 3), Unknown: unknown,
	}
	if flags&(1<<4) != 0 {
		a.ClassifierInput = text
	}
	if flags&(1<<5) != 0 {
		access := shared.AccessWrite
		if flags&(1<<6) != 0 {
			access = shared.AccessRead
		}
		a.Subjects = []shared.Subject{{Kind: shared.SubjectPath, Value: text, Access: access}}
	}
	if flags&(1<<7) != 0 {
		a.Rejected = "Fix it: " + text
	}
	return a
}

// fuzzEvent is an event from fuzz input: kind's bits 0 and 1 choose a
// chunk, a progress line, a Final or an answer; for a Final, bits 2 and 3
// its status, bit 4 gives it text as message, bit 5 a state update and
// bit 6 a UI payload.
func fuzzEvent(kind uint8, text string) shared.CallEvent {
	switch kind & 3 {
	case 0:
		return shared.CallEvent{Chunk: &shared.Chunk{Kind: shared.BlockText, Data: []byte(text)}}
	case 1:
		return shared.CallEvent{Progress: &shared.Progress{Message: text}}
	case 2:
		f := &shared.Final{Status: shared.Status(kind >> 2 & 3)}
		if kind&(1<<4) != 0 {
			f.Message = text
		}
		if kind&(1<<5) != 0 {
			f.StateUpdates = map[string]string{"k": text}
		}
		if kind&(1<<6) != 0 {
			f.UIPayload = []byte("{}")
		}
		return shared.CallEvent{Final: f}
	default:
		return preparedEvent(fuzzAnswer(kind, text, nil))
	}
}
