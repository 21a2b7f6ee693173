package kubernetes_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/riot-tools/riot/internal/jsonschema"
)

// object is one Kubernetes object of a manifest, as JSON would hold it.
type object = map[string]any

// readObjects reads every document of a YAML manifest in this directory.
func readObjects(t *testing.T, file string) []object {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return decodeYAML(t, file, data)
}

func decodeYAML(t *testing.T, name string, data []byte) []object {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []object
	for {
		var doc any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if doc == nil {
			continue
		}
		// Through JSON, so that numbers and maps are what a JSON
		// validator and an API server see.
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var o object
		if err := json.Unmarshal(b, &o); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, o)
	}
}

// only is the one object of kind in objs.
func only(t *testing.T, objs []object, kind string) object {
	t.Helper()
	var found []object
	for _, o := range objs {
		if o["kind"] == kind {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one %s, found %d", kind, len(found))
	}
	return found[0]
}

// at walks a path of map keys.
func at(t *testing.T, v any, path ...string) any {
	t.Helper()
	for i, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s is not an object", strings.Join(path[:i], "."))
		}
		if v, ok = m[k]; !ok {
			t.Fatalf("no %s", strings.Join(path[:i+1], "."))
		}
	}
	return v
}

// crd is a pinned CRD's served schemas, by version.
type crd struct {
	group, kind string
	schemas     map[string]object
}

func loadCRDs(t *testing.T) map[string]crd {
	t.Helper()
	files, err := filepath.Glob("testdata/crds/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no pinned CRDs: %v", err)
	}
	out := map[string]crd{}
	for _, f := range files {
		doc := readObjects(t, f)[0]
		c := crd{
			group:   at(t, doc, "spec", "group").(string),
			kind:    at(t, doc, "spec", "names", "kind").(string),
			schemas: map[string]object{},
		}
		for _, v := range at(t, doc, "spec", "versions").([]any) {
			v := v.(map[string]any)
			if v["served"] != true {
				continue
			}
			c.schemas[v["name"].(string)] = at(t, v, "schema", "openAPIV3Schema").(map[string]any)
		}
		out[c.group+"/"+c.kind] = c
	}
	return out
}

// strict makes an OpenAPI schema refuse fields it does not declare, as
// an API server's strict field validation does (kubectl's default): a
// JSON Schema validator alone would let a misspelt field through, which
// the server would then drop or refuse. Objects that keep unknown fields
// (x-kubernetes-preserve-unknown-fields) or declare additionalProperties
// are left as they are.
func strict(s any) any {
	switch s := s.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, v := range s {
			out[k] = strict(v)
		}
		_, hasProps := s["properties"]
		_, hasAdditional := s["additionalProperties"]
		if hasProps && !hasAdditional && s["x-kubernetes-preserve-unknown-fields"] != true {
			out["additionalProperties"] = false
		}
		return out
	case []any:
		out := make([]any, len(s))
		for i, v := range s {
			out[i] = strict(v)
		}
		return out
	}
	return s
}

func compile(t *testing.T, name string, schema any) *jsonschema.Schema {
	t.Helper()
	b, err := json.Marshal(strict(schema))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	url := "mem:///" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatalf("compile %s: %v", name, err)
	}
	return sch
}

func validate(sch *jsonschema.Schema, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// schemaFor is the strict schema of an agent-sandbox object's apiVersion
// and kind, which must be a version the pinned CRD serves.
func schemaFor(t *testing.T, crds map[string]crd, o object) (*jsonschema.Schema, object) {
	t.Helper()
	group, version, _ := strings.Cut(o["apiVersion"].(string), "/")
	kind := o["kind"].(string)
	c, ok := crds[group+"/"+kind]
	if !ok {
		t.Fatalf("no pinned CRD for %s %s", o["apiVersion"], kind)
	}
	s, ok := c.schemas[version]
	if !ok {
		t.Fatalf("the pinned CRD of %s does not serve %s", kind, version)
	}
	return compile(t, kind+"-"+version, s), s
}

// The agent-sandbox manifests are valid objects of the pinned CRDs'
// served versions, unknown fields refused. (CEL rules,
// x-kubernetes-validations, are the API server's and not checked here.)
func TestSandboxManifestsMatchCRDs(t *testing.T) {
	crds := loadCRDs(t)
	kinds := map[string]bool{}
	for _, file := range []string{"sandboxtemplate.yaml", "sandboxclaim.yaml"} {
		for _, o := range readObjects(t, file) {
			sch, _ := schemaFor(t, crds, o)
			if err := validate(sch, o); err != nil {
				t.Errorf("%s: %s %v:\n%v", file, o["kind"], at(t, o, "metadata", "name"), err)
			}
			kinds[o["kind"].(string)] = true
		}
	}
	for _, k := range []string{"SandboxTemplate", "SandboxWarmPool", "SandboxClaim"} {
		if !kinds[k] {
			t.Errorf("no %s in the manifests", k)
		}
	}
	// The pool refers to the template, and the claim to the pool.
	objs := readObjects(t, "sandboxtemplate.yaml")
	tmpl, pool := only(t, objs, "SandboxTemplate"), only(t, objs, "SandboxWarmPool")
	claim := only(t, readObjects(t, "sandboxclaim.yaml"), "SandboxClaim")
	if at(t, pool, "spec", "sandboxTemplateRef", "name") != at(t, tmpl, "metadata", "name") {
		t.Error("the SandboxWarmPool does not name the SandboxTemplate")
	}
	if at(t, claim, "spec", "warmPoolRef", "name") != at(t, pool, "metadata", "name") {
		t.Error("the SandboxClaim does not name the SandboxWarmPool")
	}
}

// The strict schemas catch what an API server would refuse: a misspelt
// field deep in the pod spec, a wrong type, a value outside an enum.
func TestSchemaCatchesMistakes(t *testing.T) {
	crds := loadCRDs(t)
	for name, spoil := range map[string]func(o object){
		"misspelt field": func(o object) {
			at(t, o, "spec", "podTemplate", "spec", "securityContext").(map[string]any)["runAsUsr"] = 1
		},
		"wrong type": func(o object) {
			at(t, o, "spec", "podTemplate", "spec").(map[string]any)["terminationGracePeriodSeconds"] = "30"
		},
		"not in enum": func(o object) { at(t, o, "spec").(map[string]any)["envVarsInjectionPolicy"] = "Sometimes" },
	} {
		o := only(t, readObjects(t, "sandboxtemplate.yaml"), "SandboxTemplate")
		spoil(o)
		sch, _ := schemaFor(t, crds, o)
		if err := validate(sch, o); err == nil {
			t.Errorf("%s: the template validated", name)
		}
	}
}

// The pod spec is written twice, in pod.yaml and in the SandboxTemplate:
// they are the same but for the workspace and state volumes, which
// pod.yaml takes from claims of its own and the template from its
// volumeClaimTemplates (the controller adds them to the pod under the
// templates' names, as claims named <template>-<sandbox>). The claims ask
// for the same storage, and both name the Secret of secret.yaml.
func TestPodSpecIsShared(t *testing.T) {
	plain := readObjects(t, "pod.yaml")
	pod := only(t, plain, "Pod")
	tmpl := only(t, readObjects(t, "sandboxtemplate.yaml"), "SandboxTemplate")
	podSpec := at(t, pod, "spec").(map[string]any)
	tmplSpec := at(t, tmpl, "spec", "podTemplate", "spec").(map[string]any)

	claimTemplates := map[string]any{}
	for _, ct := range at(t, tmpl, "spec", "volumeClaimTemplates").([]any) {
		claimTemplates[at(t, ct, "metadata", "name").(string)] = at(t, ct, "spec")
	}
	claims := map[string]any{}
	for _, o := range plain {
		if o["kind"] == "PersistentVolumeClaim" {
			claims[at(t, o, "metadata", "name").(string)] = o["spec"]
		}
	}
	var rest []any
	fromClaims := map[string]bool{}
	for _, v := range podSpec["volumes"].([]any) {
		name := at(t, v, "name").(string)
		pvc, ok := v.(map[string]any)["persistentVolumeClaim"]
		if !ok {
			rest = append(rest, v)
			continue
		}
		claimName := at(t, pvc, "claimName").(string)
		if _, ok := claimTemplates[name]; !ok {
			t.Errorf("pod.yaml's volume %s is a claim, and the template has no volumeClaimTemplate %s", name, name)
			continue
		}
		if !reflect.DeepEqual(claims[claimName], claimTemplates[name]) {
			t.Errorf("pod.yaml's claim %s asks for %v, the template's %s for %v", claimName, claims[claimName], name, claimTemplates[name])
		}
		fromClaims[name] = true
	}
	for name := range claimTemplates {
		if !fromClaims[name] {
			t.Errorf("the template's volumeClaimTemplate %s is no claim volume of pod.yaml", name)
		}
	}

	want := map[string]any{}
	for k, v := range podSpec {
		want[k] = v
	}
	want["volumes"] = rest
	if !reflect.DeepEqual(want, tmplSpec) {
		a, _ := json.MarshalIndent(want, "", "  ")
		b, _ := json.MarshalIndent(tmplSpec, "", "  ")
		t.Fatalf("pod.yaml's pod spec (its claim volumes left out):\n%s\nthe SandboxTemplate's podTemplate.spec:\n%s", a, b)
	}

	secret := at(t, only(t, readObjects(t, "secret.yaml"), "Secret"), "metadata", "name")
	var named bool
	for _, v := range rest {
		if s, ok := v.(map[string]any)["secret"]; ok {
			named = named || at(t, s, "secretName") == secret
		}
	}
	if !named {
		t.Errorf("no volume of the pod spec mounts the Secret %v of secret.yaml", secret)
	}
}

// The plain manifests, which no CRD covers, are checked against the
// same core types' schemas that the SandboxTemplate CRD embeds: the Pod
// spec against podTemplate.spec (a core/v1 PodSpec), the claims against
// volumeClaimTemplates' spec (a PersistentVolumeClaimSpec), and the
// NetworkPolicy's rules against networkPolicy's (networking/v1 rules),
// which must also be the template's rules.
func TestPlainManifestsMatchCoreSchemas(t *testing.T) {
	crds := loadCRDs(t)
	tmpl := only(t, readObjects(t, "sandboxtemplate.yaml"), "SandboxTemplate")
	_, s := schemaFor(t, crds, tmpl)
	spec := at(t, s, "properties", "spec", "properties")
	podSpec := compile(t, "PodSpec", at(t, spec, "podTemplate", "properties", "spec"))
	pvcSpec := compile(t, "PersistentVolumeClaimSpec", at(t, spec, "volumeClaimTemplates", "items", "properties", "spec"))
	rules := at(t, spec, "networkPolicy", "properties").(map[string]any)

	for _, o := range readObjects(t, "pod.yaml") {
		var err error
		switch o["kind"] {
		case "Pod":
			err = validate(podSpec, o["spec"])
		case "PersistentVolumeClaim":
			err = validate(pvcSpec, o["spec"])
		}
		if err != nil {
			t.Errorf("pod.yaml: %s %v:\n%v", o["kind"], at(t, o, "metadata", "name"), err)
		}
	}
	np := only(t, readObjects(t, "networkpolicy.yaml"), "NetworkPolicy")
	for _, dir := range []string{"ingress", "egress"} {
		if err := validate(compile(t, dir, rules[dir]), at(t, np, "spec", dir)); err != nil {
			t.Errorf("networkpolicy.yaml: %s:\n%v", dir, err)
		}
		if !reflect.DeepEqual(at(t, np, "spec", dir), at(t, tmpl, "spec", "networkPolicy", dir)) {
			t.Errorf("networkpolicy.yaml's %s rules differ from the SandboxTemplate's", dir)
		}
	}
	if sel := at(t, np, "spec", "podSelector", "matchLabels"); !reflect.DeepEqual(sel, at(t, only(t, readObjects(t, "pod.yaml"), "Pod"), "metadata", "labels")) {
		t.Errorf("the NetworkPolicy selects %v, not the Pod's labels", sel)
	}
}

// The pinned CRDs are the files SOURCE.md names, unchanged.
func TestCRDsArePinned(t *testing.T) {
	f, err := os.Open("testdata/crds/SOURCE.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pinned := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) == 4 && strings.HasSuffix(strings.TrimSpace(cells[1]), ".yaml") {
			pinned[strings.TrimSpace(cells[1])] = strings.TrimSpace(cells[2])
		}
	}
	files, _ := filepath.Glob("testdata/crds/*.yaml")
	if len(files) != len(pinned) {
		t.Fatalf("%d CRD files, %d pinned in SOURCE.md", len(files), len(pinned))
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if got, want := hex.EncodeToString(sum[:]), pinned[filepath.Base(file)]; got != want {
			t.Errorf("%s: sha256 %s, SOURCE.md pins %s", file, got, want)
		}
	}
}
