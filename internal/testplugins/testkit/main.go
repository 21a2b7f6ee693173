// Command testkit is a riot plugin whose tools misbehave on purpose, for
// the host's integration tests.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/riot-tools/riot/plugin"
)

// A stray print before the handshake: the SDK's Serve points stdout at
// stderr first, so it must not break the protocol. Every host test that
// starts this plugin proves it.
func init() { fmt.Println("testkit: a stray print from init") }

func main() {
	// With RIOT_TESTKIT_HANG=DIR, it hangs before serving while DIR/hang
	// exists, as a plugin stuck in its start would, after writing its pid
	// to DIR/pid (a FIFO the test reads).
	if dir := os.Getenv("RIOT_TESTKIT_HANG"); dir != "" {
		if _, err := os.Stat(dir + "/hang"); err == nil {
			_ = os.WriteFile(dir+"/pid", []byte(fmt.Sprintln(os.Getpid())), 0o600)
			select {}
		}
	}
	b := &barriers{m: map[string]*barrier{}}
	// With RIOT_TESTKIT_READ_ONLY=1 it serves as a read-only plugin,
	// confined by Landlock once it listens.
	serve := plugin.Serve
	if os.Getenv("RIOT_TESTKIT_READ_ONLY") == "1" {
		serve = plugin.ServeReadOnly
	}
	// With RIOT_TESTKIT_UNDECLARED=1 its manifest declares none of what
	// the host may rely on (undeclared.go).
	if os.Getenv("RIOT_TESTKIT_UNDECLARED") == "1" {
		serve = serveUndeclared
	}
	serve(
		plugin.New[noopIn](noop{}),
		plugin.New[echoIn](echo{}),
		plugin.New[crashIn](crash{}),
		plugin.New[blockIn](block{}),
		plugin.New[barrierIn](barrierTool{b: b}),
		plugin.New[failIn](fail{}),
		plugin.New[streamIn](stream{name: "Stream"}),
		plugin.New[streamIn](stream{name: "StreamUnlimited", unlimited: true}),
		plugin.New[writesIn](writes{}),
		plugin.New[imageIn](image{}),
		plugin.New[stateIn](state{}),
		plugin.New[sleepIn](sleep{}),
		plugin.New[lookIn](&look{b: b, inFlight: map[string]int{}, peak: map[string]int{}}),
		plugin.New[touchIn](touch{}),
		plugin.New[plainIn](plain{}),
		plugin.New[markIn](mark{}),
	)
}

// Noop returns "ok". Read-only and concurrency-safe.
type noopIn struct{}
type noop struct{}

func (noop) Name() string                  { return "Noop" }
func (noop) Prompt() string                { return "Does nothing." }
func (noop) Describe(noopIn) string        { return "Do nothing" }
func (noop) IsReadOnly(noopIn) bool        { return true }
func (noop) IsConcurrencySafe(noopIn) bool { return true }
func (noop) Call(context.Context, noopIn, *plugin.Env) plugin.Outcome {
	return plugin.Ok(plugin.Text("ok"))
}

// Echo returns its text; its schema exercises validation hints.
type echoIn struct {
	Text  string `json:"text" jsonschema_description:"The text to echo back."`
	Mode  string `json:"mode,omitempty" jsonschema:"enum=plain,enum=upper"`
	Count int    `json:"count,omitempty" jsonschema:"minimum=1"`
}
type echo struct{}

func (echo) Name() string              { return "Echo" }
func (echo) Prompt() string            { return "Echoes text." }
func (echo) Describe(in echoIn) string { return "Echo " + in.Text }
func (echo) IsReadOnly(echoIn) bool    { return true }
func (echo) Call(_ context.Context, in echoIn, _ *plugin.Env) plugin.Outcome {
	t := in.Text
	if in.Mode == "upper" {
		t = strings.ToUpper(t)
	}
	return plugin.Ok(plugin.Text(strings.Repeat(t, max(in.Count, 1))))
}

// Crash fails in the way its input names: an unrecoverable panic in a
// goroutine, os.Exit, or a panic the SDK recovers.
type crashIn struct {
	How      string `json:"how" jsonschema:"enum=goroutine-panic,enum=exit,enum=call-panic"`
	Code     int    `json:"code,omitempty"`
	ReadOnly bool   `json:"read_only,omitempty"`
}
type crash struct{}

func (crash) Name() string               { return "Crash" }
func (crash) Prompt() string             { return "Crashes." }
func (crash) Describe(in crashIn) string { return "Crash by " + in.How }
func (crash) IsReadOnly(in crashIn) bool { return in.ReadOnly }
func (crash) Call(_ context.Context, in crashIn, env *plugin.Env) plugin.Outcome {
	fmt.Fprintln(env.Output(), "partial output before the crash")
	switch in.How {
	case "goroutine-panic":
		done := make(chan struct{})
		go func() { panic("testkit: unrecoverable panic") }()
		<-done
	case "exit":
		os.Exit(in.Code)
	case "call-panic":
		panic("testkit: recovered panic")
	}
	return plugin.Failed("unknown crash")
}

// Block reports its plugin's pid, optionally writes it to a file (a FIFO
// the test reads), then blocks until cancelled, or forever if told to
// ignore cancellation.
type blockIn struct {
	PidFile      string `json:"pid_file,omitempty"`
	IgnoreCancel bool   `json:"ignore_cancel,omitempty"`
	Safe         bool   `json:"safe,omitempty"`
}
type block struct{}

func (block) Name() string                      { return "Block" }
func (block) Prompt() string                    { return "Blocks." }
func (block) Describe(blockIn) string           { return "Block" }
func (block) IsReadOnly(in blockIn) bool        { return in.Safe }
func (block) IsConcurrencySafe(in blockIn) bool { return in.Safe }
func (block) Call(ctx context.Context, in blockIn, env *plugin.Env) plugin.Outcome {
	pid := fmt.Sprint(os.Getpid())
	env.Progress("pid=" + pid)
	if in.PidFile != "" {
		if err := os.WriteFile(in.PidFile, []byte(pid+"\n"), 0o600); err != nil {
			return plugin.Failed("cannot write the pid file")
		}
	}
	if in.IgnoreCancel {
		select {}
	}
	<-ctx.Done()
	return plugin.Failed("Cancelled.")
}

// Barrier waits until n calls with the same name have arrived, proving
// they run in parallel. It gives up after wait_ms and says so.
type barrierIn struct {
	Name   string `json:"name"`
	N      int    `json:"n"`
	WaitMs int    `json:"wait_ms,omitempty"`
}
type barriers struct {
	mu sync.Mutex
	m  map[string]*barrier
}
type barrier struct {
	arrived int
	n       int
	open    chan struct{}
}

func (b *barriers) arrive(name string, n int) chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	br := b.m[name]
	if br == nil {
		br = &barrier{n: n, open: make(chan struct{})}
		b.m[name] = br
	}
	br.arrived++
	if br.arrived == br.n {
		close(br.open)
	}
	return br.open
}

type barrierTool struct{ b *barriers }

func (barrierTool) Name() string                     { return "Barrier" }
func (barrierTool) Prompt() string                   { return "Meets at a barrier." }
func (barrierTool) Describe(in barrierIn) string     { return "Barrier " + in.Name }
func (barrierTool) IsReadOnly(barrierIn) bool        { return true }
func (barrierTool) IsConcurrencySafe(barrierIn) bool { return true }
func (t barrierTool) Call(ctx context.Context, in barrierIn, _ *plugin.Env) plugin.Outcome {
	open := t.b.arrive(in.Name, in.N)
	wait := time.Duration(in.WaitMs) * time.Millisecond
	if wait == 0 {
		wait = time.Minute
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-open:
		return plugin.Ok(plugin.Text("crossed"))
	case <-timer.C:
		return plugin.Ok(plugin.Text("not crossed"))
	case <-ctx.Done():
		return plugin.Failed("Cancelled.")
	}
}

// Fail fails with its message, as a shell-like tool whose failure cancels
// the rest of the turn.
type failIn struct {
	Message string `json:"message"`
	Safe    bool   `json:"safe,omitempty"`
}
type fail struct{}

func (fail) Name() string                     { return "Fail" }
func (fail) Prompt() string                   { return "Fails." }
func (fail) Describe(in failIn) string        { return "fail " + in.Message }
func (fail) IsReadOnly(in failIn) bool        { return in.Safe }
func (fail) IsConcurrencySafe(in failIn) bool { return in.Safe }
func (fail) CascadesOnFailure() bool          { return true }
func (fail) Call(_ context.Context, in failIn, _ *plugin.Env) plugin.Outcome {
	return plugin.Failed(in.Message)
}

// Stream writes bytes of output: lines of the given text, or repeated
// characters, through the streamed output.
type streamIn struct {
	Bytes int64 `json:"bytes"`
	// Piece is the size of each write; odd sizes split characters.
	Piece int    `json:"piece,omitempty"`
	Line  string `json:"line,omitempty"`
	Note  string `json:"note,omitempty"`
	Fail  bool   `json:"fail,omitempty"`
}
type stream struct {
	name      string
	unlimited bool
}

func (s stream) Name() string           { return s.name }
func (stream) Prompt() string           { return "Streams output." }
func (stream) Describe(streamIn) string { return "Stream output" }
func (stream) IsReadOnly(streamIn) bool { return true }
func (s stream) ResultBudget() plugin.Budget {
	if s.unlimited {
		return plugin.Unlimited()
	}
	return plugin.Limit(plugin.DefaultBudgetChars)
}
func (stream) Call(_ context.Context, in streamIn, env *plugin.Env) plugin.Outcome {
	line := in.Line
	if line == "" {
		line = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.\n"
	}
	buf := []byte(strings.Repeat(line, max(2, (128<<10)/len(line))))
	piece := int64(len(buf) / 2)
	if in.Piece > 0 {
		piece = int64(in.Piece)
	}
	out := env.Output()
	for off := int64(0); off < in.Bytes; {
		n := min(in.Bytes-off, piece)
		start := off % int64(len(line))
		// Write the stream as if it were the line repeated forever.
		chunk := buf[start : start+min(n, int64(len(buf))-start)]
		if _, err := out.Write(chunk); err != nil {
			return plugin.Failed("The host went away.")
		}
		off += int64(len(chunk))
	}
	if in.Fail {
		return plugin.Failed(in.Note)
	}
	return plugin.Ok().WithNote(in.Note)
}

// Writes writes each of Writes, Times over, then each of Then, to its
// output as one write each: bytes that need not be UTF-8 or end on a
// character among them. With Pause, it waits after each of Then long
// enough for the output's flusher to announce it, as a command printing a
// trickle does.
type writesIn struct {
	Writes [][]byte `json:"writes"`
	Times  int      `json:"times,omitempty"`
	Then   [][]byte `json:"then,omitempty"`
	Pause  bool     `json:"pause,omitempty"`
}
type writes struct{}

func (writes) Name() string                { return "Writes" }
func (writes) Prompt() string              { return "Writes output." }
func (writes) Describe(writesIn) string    { return "Write output" }
func (writes) IsReadOnly(writesIn) bool    { return true }
func (writes) ResultBudget() plugin.Budget { return plugin.Limit(plugin.DefaultBudgetChars) }
func (writes) Call(ctx context.Context, in writesIn, env *plugin.Env) plugin.Outcome {
	out := env.Output()
	for range max(1, in.Times) {
		for _, w := range in.Writes {
			if _, err := out.Write(w); err != nil {
				return plugin.Failed("The host went away.")
			}
		}
	}
	for _, w := range in.Then {
		if _, err := out.Write(w); err != nil {
			return plugin.Failed("The host went away.")
		}
		if in.Pause {
			// The flusher runs every 50 ms. Whether it did or not, the
			// result is the same: only the announcements differ.
			if err := env.Clock.Sleep(ctx, 120*time.Millisecond); err != nil {
				return plugin.Failed("The host went away.")
			}
		}
	}
	return plugin.Ok()
}

// Image returns a one-pixel PNG.
type imageIn struct{}
type image struct{}

func (image) Name() string                { return "Image" }
func (image) Prompt() string              { return "Returns an image." }
func (image) Describe(imageIn) string     { return "An image" }
func (image) IsReadOnly(imageIn) bool     { return true }
func (image) ResultBudget() plugin.Budget { return plugin.Limit(10) }
func (image) Call(context.Context, imageIn, *plugin.Env) plugin.Outcome {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")
	return plugin.Ok(plugin.Image("image/png", png))
}

// State records and reports session state.
type stateIn struct {
	Set string `json:"set,omitempty"`
}
type state struct{}

func (state) Name() string            { return "State" }
func (state) Prompt() string          { return "Keeps state." }
func (state) Describe(stateIn) string { return "State" }
func (state) Call(_ context.Context, in stateIn, env *plugin.Env) plugin.Outcome {
	o := plugin.Ok(plugin.Text("was=" + env.State("value")))
	if in.Set != "" {
		o = o.WithState("value", in.Set)
	}
	return o
}

// Plain has none of the checks that shape Prepare's answer, so its
// manifest declares the default one and the host skips its Prepare. It
// cascades, so that a test sees a failure cascade and a rejection not.
// An n past int64 passes the schema and fails decoding.
type plainIn struct {
	N    int  `json:"n"`
	Fail bool `json:"fail,omitempty"`
}
type plain struct{}

func (plain) Name() string               { return "Plain" }
func (plain) Prompt() string             { return "Does nothing, plainly." }
func (plain) Describe(in plainIn) string { return fmt.Sprintf("Plain %d", in.N) }
func (plain) CascadesOnFailure() bool    { return true }
func (plain) Call(_ context.Context, in plainIn, _ *plugin.Env) plugin.Outcome {
	if in.Fail {
		return plugin.Failed(fmt.Sprintf("Plain %d failed as asked.", in.N))
	}
	return plugin.Ok(plugin.Text(fmt.Sprintf("plain %d", in.N)))
}

// Sleep sleeps, a stand-in for a call that takes time. Concurrency-safe.
type sleepIn struct {
	Ms int `json:"ms"`
}
type sleep struct{}

func (sleep) Name() string                   { return "Sleep" }
func (sleep) Prompt() string                 { return "Sleeps." }
func (sleep) Describe(in sleepIn) string     { return fmt.Sprintf("Sleep %d ms", in.Ms) }
func (sleep) IsReadOnly(sleepIn) bool        { return true }
func (sleep) IsConcurrencySafe(sleepIn) bool { return true }
func (sleep) Call(ctx context.Context, in sleepIn, env *plugin.Env) plugin.Outcome {
	if err := env.Clock.Sleep(ctx, time.Duration(in.Ms)*time.Millisecond); err != nil {
		return plugin.Failed("Cancelled.")
	}
	return plugin.Ok(plugin.Text("slept"))
}

// Look is concurrency-safe and sees, in its Prepare, whether a file exists:
// its description says so, which tells a test when its Prepare ran. With
// meet, its Prepare waits until n Prepares of that name have arrived (or
// the host cancels it), proving they run in parallel, and its Call reports
// how many were in flight at most; with signal, each arrival writes a line
// to that file (a FIFO the test reads). With crash, the plugin dies in
// Prepare.
type lookIn struct {
	Path   string `json:"path"`
	Meet   string `json:"meet,omitempty"`
	N      int    `json:"n,omitempty"`
	Signal string `json:"signal,omitempty"`
	Crash  bool   `json:"crash,omitempty"`
}
type look struct {
	b        *barriers
	mu       sync.Mutex
	inFlight map[string]int
	peak     map[string]int
}

func (*look) Name() string                  { return "Look" }
func (*look) Prompt() string                { return "Looks whether a file exists." }
func (*look) IsReadOnly(lookIn) bool        { return true }
func (*look) IsConcurrencySafe(lookIn) bool { return true }
func (*look) Describe(in lookIn) string {
	if _, err := os.Stat(in.Path); err == nil {
		return "Look " + in.Path + ": present"
	}
	return "Look " + in.Path + ": absent"
}
func (l *look) ValidateInput(ctx context.Context, in lookIn, _ *plugin.Env) plugin.Validation {
	if in.Crash {
		os.Exit(3)
	}
	if in.Meet == "" {
		return plugin.Accepted()
	}
	l.mu.Lock()
	l.inFlight[in.Meet]++
	l.peak[in.Meet] = max(l.peak[in.Meet], l.inFlight[in.Meet])
	l.mu.Unlock()
	if in.Signal != "" {
		if f, err := os.OpenFile(in.Signal, os.O_WRONLY|os.O_APPEND, 0); err == nil {
			_, _ = f.WriteString("arrived\n")
			_ = f.Close()
		}
	}
	defer func() {
		l.mu.Lock()
		l.inFlight[in.Meet]--
		l.mu.Unlock()
	}()
	select {
	case <-l.b.arrive("look:"+in.Meet, in.N):
		return plugin.Accepted()
	case <-ctx.Done():
		return plugin.Rejected("Cancelled while meeting.")
	}
}
func (l *look) Call(_ context.Context, in lookIn, _ *plugin.Env) plugin.Outcome {
	l.mu.Lock()
	defer l.mu.Unlock()
	return plugin.Ok(plugin.Text(fmt.Sprintf("peak %d", l.peak[in.Meet])))
}

// Touch creates a file: a call that is not concurrency-safe and changes
// what the Prepare of a later call sees.
type touchIn struct {
	Path string `json:"path"`
}
type touch struct{}

func (touch) Name() string               { return "Touch" }
func (touch) Prompt() string             { return "Creates a file." }
func (touch) Describe(in touchIn) string { return "Touch " + in.Path }
func (touch) Call(_ context.Context, in touchIn, _ *plugin.Env) plugin.Outcome {
	if err := os.WriteFile(in.Path, nil, 0o600); err != nil {
		return plugin.Failed("Cannot create the file.")
	}
	return plugin.Ok(plugin.Text("touched"))
}

// Mark has checks whose answer varies by input: read-only and
// concurrency-safe unless write, which has a classifier input, so that a guessed answer (the previous
// call's) can be wrong. A call that runs creates marker, which tells a test
// whether and when it ran. It cascades; an n past int64 passes the schema
// and fails decoding, as Plain's.
type markIn struct {
	N      int    `json:"n"`
	Write  bool   `json:"write,omitempty"`
	Fail   bool   `json:"fail,omitempty"`
	Marker string `json:"marker,omitempty"`
}
type mark struct{}

func (mark) Name() string                     { return "Mark" }
func (mark) Prompt() string                   { return "Leaves a mark." }
func (mark) Describe(in markIn) string        { return fmt.Sprintf("Mark %d", in.N) }
func (mark) IsReadOnly(in markIn) bool        { return !in.Write }
func (mark) IsConcurrencySafe(in markIn) bool { return !in.Write }
func (mark) CascadesOnFailure() bool          { return true }

// ClassifierInput: a write gives auto mode's classifier something to judge.
func (mark) ClassifierInput(in markIn) string {
	if in.Write {
		return "leave a mark"
	}
	return ""
}
func (mark) Call(_ context.Context, in markIn, _ *plugin.Env) plugin.Outcome {
	if in.Marker != "" {
		if err := os.WriteFile(in.Marker, nil, 0o600); err != nil {
			return plugin.Failed("Cannot create the marker.")
		}
	}
	if in.Fail {
		return plugin.Failed(fmt.Sprintf("Mark %d failed as asked.", in.N))
	}
	return plugin.Ok(plugin.Text(fmt.Sprintf("mark %d", in.N)))
}
