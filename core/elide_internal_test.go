package core

import (
	"errors"
	"strings"
	"testing"

	"github.com/riot-tools/riot/shared"
)

func preparedEvent(p *shared.PrepareAnswer) shared.CallEvent {
	return shared.CallEvent{Prepared: p}
}

var (
	finalEvent = shared.CallEvent{Final: &shared.Final{Status: shared.StatusOK}}
	chunkEvent = shared.CallEvent{Chunk: &shared.Chunk{Kind: shared.BlockText, Data: []byte("x")}}
)

// The answer an unprepared Call's stream begins with: taken once, first,
// and only the default one; each breach says which.
func TestAnswerTake(t *testing.T) {
	nonDefault := map[string]*shared.PrepareAnswer{
		"read_only":         {Describe: "d", ReadOnly: true},
		"concurrency_safe":  {Describe: "d", ConcurrencySafe: true},
		"classifier_input":  {Describe: "d", ClassifierInput: "c"},
		"permission":        {Describe: "d", Permission: shared.PermissionAllow},
		"permission_reason": {Describe: "d", PermissionReason: "r"},
		"subjects":          {Describe: "d", Subjects: []shared.Subject{{Kind: shared.SubjectPath, Value: "/x"}}},
	}
	for field, p := range nonDefault {
		a := answer{c: &call{}}
		if _, err := a.take(preparedEvent(p)); err == nil || !strings.Contains(err.Error(), "other than the default one") {
			t.Errorf("an answer with %s: %v, want it refused as not the default", field, err)
		}
		if a.started() || a.c.prep != nil {
			t.Errorf("an answer with %s was taken", field)
		}
	}
	unknown := &shared.PrepareAnswer{Describe: "d", Unknown: []byte{0xf8, 0x01, 0x01}} // field 31, varint 1
	if _, err := (&answer{c: &call{}}).take(preparedEvent(unknown)); err == nil {
		t.Error("an answer with a field this host does not know was taken")
	}

	a := answer{c: &call{}}
	if _, err := a.take(chunkEvent); err == nil || !strings.Contains(err.Error(), "did not begin with the answer") {
		t.Errorf("content first: %v", err)
	}
	took, err := a.take(preparedEvent(&shared.PrepareAnswer{Describe: "Plain 1"}))
	if !took || err != nil || !a.started() || a.rejected() || a.c.prep.Describe != "Plain 1" || a.c.result.Describe != "Plain 1" {
		t.Fatalf("the default answer: took %v, %v; started %v, rejected %v, describe %q", took, err, a.started(), a.rejected(), a.c.result.Describe)
	}
	if took, err := a.take(chunkEvent); took || err != nil {
		t.Errorf("content after the answer: took %v, %v", took, err)
	}
	if _, err := a.take(preparedEvent(&shared.PrepareAnswer{Describe: "again"})); err == nil || !strings.Contains(err.Error(), "a second answer") {
		t.Errorf("a second answer: %v", err)
	}

	r := answer{c: &call{}}
	if took, err := r.take(preparedEvent(&shared.PrepareAnswer{Rejected: "Fix n."})); !took || err != nil || !r.rejected() || r.started() || r.c.prep != nil {
		t.Fatalf("a rejection: took %v, %v; rejected %v, started %v", took, err, r.rejected(), r.started())
	}
	if took, err := r.take(finalEvent); took || err != nil {
		t.Errorf("the Final after a rejection: took %v, %v", took, err)
	}
	if _, err := r.take(chunkEvent); err == nil || !strings.Contains(err.Error(), "output after rejecting") {
		t.Errorf("content after a rejection: %v", err)
	}
	if r.unanswered(errTest, faultCrash) {
		t.Error("unanswered after an answer")
	}
	none := answer{c: &call{}}
	if !none.unanswered(errTest, faultCrash) || none.unanswered(errTest, faultMalformed) || none.unanswered(nil, -1) {
		t.Error("unanswered: a failure before the answer is Prepare's, a breach of the protocol and a clean end are not")
	}
}

var errTest = errors.New("the stream broke")
