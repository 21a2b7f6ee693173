package jsonschema

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

var drafts = []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020}

// compiled reports whether any draft's meta-schema or vocabulary is
// compiled.
func compiled() bool {
	for _, d := range drafts {
		if d.sch != nil {
			return true
		}
		if d.vocabSchemas != nil {
			return true
		}
	}
	return false
}

func TestMain(m *testing.M) {
	// Before any test compiles a schema: nothing ran at init.
	if compiled() {
		fmt.Fprintln(os.Stderr, "the meta-schemas were compiled before the first schema: at init")
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func compile(t *testing.T, schema string) (*Schema, error) {
	t.Helper()
	doc, err := UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := NewCompiler()
	if err := c.AddResource("mem:///s.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("mem:///s.json")
}

// Every draft's meta-schema still checks schemas, and every draft's
// schemas still validate, once compiled on first use.
func TestEveryDraftChecksSchemasOnFirstUse(t *testing.T) {
	for _, d := range drafts {
		t.Run(d.url, func(t *testing.T) {
			sch, err := compile(t, `{"$schema": "`+d.url+`#", "type": "object", "required": ["a"], "properties": {"a": {"type": "integer", "minimum": 1}}}`)
			if err != nil {
				t.Fatalf("a valid schema does not compile: %v", err)
			}
			for _, tc := range []struct {
				inst string
				ok   bool
			}{{`{"a": 2}`, true}, {`{}`, false}, {`{"a": 0}`, false}, {`{"a": "x"}`, false}} {
				inst, _ := UnmarshalJSON(strings.NewReader(tc.inst))
				if err := sch.Validate(inst); (err == nil) != tc.ok {
					t.Errorf("%s: valid = %v, want %v (%v)", tc.inst, err == nil, tc.ok, err)
				}
			}
			_, err = compile(t, `{"$schema": "`+d.url+`#", "type": 5}`)
			var sve *SchemaValidationError
			if !errors.As(err, &sve) {
				t.Errorf("a schema its meta-schema rejects compiled, or failed otherwise: %v", err)
			}
		})
	}
	if !compiled() {
		t.Error("the meta-schemas are still not compiled after use")
	}
}

// TestFirstUseFromManyGoroutines compiles the first schemas of a fresh
// process from many goroutines at once: the meta-schemas compile once,
// and (under -race) without a data race.
func TestFirstUseFromManyGoroutines(t *testing.T) {
	if os.Getenv("JSONSCHEMA_FIRST_USE_CHILD") == "1" {
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for i := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d := drafts[i%len(drafts)]
				if _, err := compile(t, `{"$schema": "`+d.url+`#", "type": "string"}`); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		return
	}
	inChild(t, "TestFirstUseFromManyGoroutines", "JSONSCHEMA_FIRST_USE_CHILD")
}

// TestOnlyTheUsedDraftCompiles: in a fresh process, a draft 2020-12
// schema compiles draft 2020-12's meta-schemas and no other draft's.
func TestOnlyTheUsedDraftCompiles(t *testing.T) {
	if os.Getenv("JSONSCHEMA_ONE_DRAFT_CHILD") == "1" {
		if _, err := compile(t, `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string"}`); err != nil {
			t.Fatal(err)
		}
		for _, d := range drafts {
			if got, want := d.sch != nil, d == Draft2020; got != want {
				t.Errorf("%s: compiled = %v, want %v", d.url, got, want)
			}
		}
		return
	}
	inChild(t, "TestOnlyTheUsedDraftCompiles", "JSONSCHEMA_ONE_DRAFT_CHILD")
}

// TestSkipMetaValidationCompilesNoMetaSchema: in a fresh process, a
// compiler told to skip the meta-schema check compiles a draft 2020-12
// schema without compiling that draft's meta-schemas, and the schema
// validates as one compiled with the check does.
func TestSkipMetaValidationCompilesNoMetaSchema(t *testing.T) {
	const schema = `{"type": "object", "required": ["a"], "additionalProperties": false,
		"properties": {"a": {"type": "integer", "minimum": 1}, "b": {"enum": ["x", "y"]}}}`
	insts := []string{`{"a": 2}`, `{"a": 2, "b": "y"}`, `{}`, `{"a": 0}`, `{"a": "x"}`, `{"a": 1, "b": "z"}`, `{"a": 1, "c": 1}`}
	if os.Getenv("JSONSCHEMA_SKIP_META_CHILD") == "1" {
		doc, err := UnmarshalJSON(strings.NewReader(schema))
		if err != nil {
			t.Fatal(err)
		}
		c := NewCompiler()
		c.SkipMetaValidation()
		if err := c.AddResource("mem:///s.json", doc); err != nil {
			t.Fatal(err)
		}
		skipped, err := c.Compile("mem:///s.json")
		if err != nil {
			t.Fatalf("a valid schema does not compile without the check: %v", err)
		}
		for _, d := range drafts {
			if d.sch != nil || d.vocabSchemas != nil {
				t.Errorf("%s: its meta-schemas compiled without the check", d.url)
			}
		}
		checked, err := compile(t, schema)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range insts {
			inst, _ := UnmarshalJSON(strings.NewReader(s))
			if a, b := skipped.Validate(inst), checked.Validate(inst); (a == nil) != (b == nil) {
				t.Errorf("%s: valid without the check = %v, with it = %v", s, a == nil, b == nil)
			}
		}
		return
	}
	inChild(t, "TestSkipMetaValidationCompilesNoMetaSchema", "JSONSCHEMA_SKIP_META_CHILD")
}

// inChild runs the test named test again in a fresh process of this test
// binary, with env=1 in its environment, and fails if it fails.
func inChild(t *testing.T, test, env string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env+"=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the child failed: %v\n%s", err, out)
	}
}
