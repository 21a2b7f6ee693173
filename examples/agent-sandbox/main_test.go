package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/watch"
	k8stesting "k8s.io/client-go/testing"
	sandboxv1beta1 "sigs.k8s.io/agent-sandbox/api/v1beta1"
	"sigs.k8s.io/agent-sandbox/clients/k8s/extensions/clientset/versioned/fake"
	claimsv1beta1 "sigs.k8s.io/agent-sandbox/clients/k8s/extensions/clientset/versioned/typed/api/v1beta1"
	extv1beta1 "sigs.k8s.io/agent-sandbox/extensions/api/v1beta1"
)

// fakeClaims is agent-sandbox's fake clientset with the API server's one
// job the example relies on that the fake lacks: a name for a claim made
// with generateName.
func fakeClaims(t *testing.T, namespace string) claimsv1beta1.SandboxClaimInterface {
	t.Helper()
	cs := fake.NewSimpleClientset()
	cs.PrependReactor("create", "sandboxclaims", func(a k8stesting.Action) (bool, runtime.Object, error) {
		c := a.(k8stesting.CreateAction).GetObject().(*extv1beta1.SandboxClaim)
		if c.Name == "" {
			c.Name = c.GenerateName + rand.String(5)
		}
		return false, nil, nil
	})
	return cs.ExtensionsV1beta1().SandboxClaims(namespace)
}

// controller plays agent-sandbox's claim controller for the first claim
// made after it starts: it binds the claim to a Sandbox that is not ready
// yet, then marks it ready with host as its Service, or deletes it when
// host is "". It returns when it is done.
func controller(t *testing.T, claims claimsv1beta1.SandboxClaimInterface, host string) <-chan error {
	t.Helper()
	w, err := claims.Watch(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		defer w.Stop()
		ev := <-w.ResultChan()
		if ev.Type != watch.Added {
			done <- errors.New("the first event is not a claim added")
			return
		}
		c := ev.Object.(*extv1beta1.SandboxClaim).DeepCopy()
		if c.Spec.WarmPoolRef.Name != "riot" {
			done <- errors.New("the claim is not from the riot pool")
			return
		}
		c.Status.SandboxStatus = extv1beta1.SandboxStatus{Name: "riot-x7k2p"}
		meta.SetStatusCondition(&c.Status.Conditions, metav1.Condition{Type: string(sandboxv1beta1.SandboxConditionReady), Status: metav1.ConditionFalse, Reason: "DependenciesNotReady"})
		c, err := claims.UpdateStatus(t.Context(), c, metav1.UpdateOptions{})
		if err != nil {
			done <- err
			return
		}
		if host == "" {
			done <- claims.Delete(t.Context(), c.Name, metav1.DeleteOptions{})
			return
		}
		c.Status.SandboxStatus.ServiceFQDN = host
		c.Status.SandboxStatus.PodIPs = []string{"10.0.0.7"}
		meta.SetStatusCondition(&c.Status.Conditions, metav1.Condition{Type: string(sandboxv1beta1.SandboxConditionReady), Status: metav1.ConditionTrue, Reason: "DependenciesReady"})
		_, err = claims.UpdateStatus(t.Context(), c, metav1.UpdateOptions{})
		done <- err
	}()
	return done
}

// startRiot builds riot from this repository and serves it with `riot mcp
// --listen` on loopback, as the session pod's entrypoint does, with a
// token file and a workspace of its own. It returns the port and token.
func startRiot(t *testing.T, workspace string) (int, string) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "riot")
	build := exec.Command("go", "build", "-o", bin, "./cmd/riot")
	build.Dir = root
	// As cmd/riot's tests build it, so CI builds it once.
	build.Env = append(os.Environ(), "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build riot: %v\n%s", err, out)
	}
	token := rand.String(32)
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "mcp", "--listen", "127.0.0.1:0", "--token-file", tokenFile)
	cmd.Dir = workspace
	home := filepath.Join(dir, "home")
	// Its session's /tmp is made in TMPDIR: killed below, riot does not
	// remove it, and the test's directory takes it.
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home+"/.config", "XDG_STATE_HOME="+home+"/.state",
		"XDG_DATA_HOME="+home+"/.data", "XDG_CACHE_HOME="+home+"/.cache", "RIOT_STATE_DIR=", "TMPDIR="+dir)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	serving := make(chan string, 1)
	var log bytes.Buffer
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`serving MCP on http://127\.0\.0\.1:(\d+)/`)
		sent := false
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil && !sent {
				serving <- m[1]
				sent = true
				continue
			}
			log.WriteString(sc.Text() + "\n")
		}
		if !sent {
			close(serving)
		}
	}()
	select {
	case port, ok := <-serving:
		if !ok {
			t.Fatalf("riot mcp exited without serving:\n%s", log.String())
		}
		n, err := strconv.Atoi(port)
		if err != nil {
			t.Fatal(err)
		}
		return n, token
	case <-time.After(30 * time.Second):
		t.Fatal("riot mcp did not serve within 30 s")
	}
	return 0, ""
}

// The example's flow against agent-sandbox's fake clientset: the claim is
// made from the riot pool, waited on until its Sandbox is ready, and the
// turn runs over MCP with the bearer token against riot serving on
// loopback, where the fake controller points the claim's Service. riot's
// permission chain answers as in a pod: reads run; a write riot would ask
// about is denied, since the example offers no elicitation, and does not
// run. The claim is deleted afterwards.
func TestClaimAndRunTurn(t *testing.T) {
	if testing.Short() {
		t.Skip("builds riot")
	}
	workspace := t.TempDir()
	if err := os.WriteFile(filepath.Join(workspace, "hello.txt"), []byte("hello from the session pod\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	port, token := startRiot(t, workspace)

	claims := fakeClaims(t, "agents")
	bound := controller(t, claims, "127.0.0.1")
	turn, err := parseTurn([]byte(`[
		{"type": "tool_use", "id": "toolu_01", "name": "Read", "input": {"file_path": "hello.txt"}},
		{"type": "tool_use", "id": "toolu_02", "name": "Grep", "input": {"pattern": "session p[o]d", "output_mode": "content"}},
		{"type": "tool_use", "id": "toolu_03", "name": "Bash", "input": {"command": "wc -l hello.txt"}},
		{"type": "tool_use", "id": "toolu_04", "name": "Bash", "input": {"command": "touch written.txt"}}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := session(ctx, claims, "riot", token, port, time.Minute, false, turn, &out); err != nil {
		t.Fatal(err)
	}
	if err := <-bound; err != nil {
		t.Fatal(err)
	}
	var results []toolResult
	if err := json.Unmarshal(out.Bytes(), &results); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	if len(results) != len(turn) {
		t.Fatalf("%d results for %d calls:\n%s", len(results), len(turn), out.String())
	}
	for i, want := range []string{"hello from the session pod", "hello.txt", "1 hello.txt", "denied"} {
		r := results[i]
		if r.ToolUseID != turn[i].ID || !strings.Contains(r.Content, want) || r.IsError != (i == 3) {
			t.Errorf("result %d: %+v, want %q in it, is_error %v", i, r, want, i == 3)
		}
	}
	if _, err := os.Stat(filepath.Join(workspace, "written.txt")); !os.IsNotExist(err) {
		t.Errorf("the denied call ran: %v", err)
	}
	list, err := claims.List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 0 {
		t.Errorf("claims left after the session: %v", list.Items)
	}
}

// A claim deleted before its Sandbox is ready ends the wait with an error
// at once, rather than at the wait's deadline.
func TestClaimDeletedWhileWaiting(t *testing.T) {
	claims := fakeClaims(t, "agents")
	deleted := controller(t, claims, "")
	name, err := claimSession(t.Context(), claims, "riot")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	host, err := waitBound(ctx, claims, name)
	if !errors.Is(err, errClaimGone) || ctx.Err() != nil {
		t.Fatalf("waitBound = %q, %v; want errClaimGone before the deadline", host, err)
	}
	if err := <-deleted; err != nil {
		t.Fatal(err)
	}
}

// The turn the README runs is one the example reads.
func TestShippedTurn(t *testing.T) {
	if _, err := readTurn("turn.json"); err != nil {
		t.Fatal(err)
	}
}
