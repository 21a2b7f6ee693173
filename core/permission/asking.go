package permission

import "context"

// askingKey carries what to do when a prompter puts a question to the
// user.
type askingKey struct{}

// WithAsking returns ctx carrying f, which a prompter runs (Asking) when
// it puts the question the call raised to the user: riot's core runs the
// Notification hooks there.
func WithAsking(ctx context.Context, f func()) context.Context {
	return context.WithValue(ctx, askingKey{}, f)
}

// Asking tells riot that the user is being asked now, and will be waited
// for. A Prompter, NetworkPrompter or elicitor calls it when, and only
// when, it puts a question to a person: not when it cannot ask, and not
// when it answers from an answer it already has (a client's reply to a
// question asked before).
func Asking(ctx context.Context) {
	if f, _ := ctx.Value(askingKey{}).(func()); f != nil {
		f()
	}
}
