// Package core is riot's host. It supervises plugin processes and keeps the
// registry of their tools in an append-only order; it checks every input
// against its tool's schema, runs the permission chain, schedules a turn's
// calls (parallel groups, ordered results, cascade cancellation), holds
// result budgets, and keeps session state. Every failure, a crashed or hung
// plugin included, becomes a normal result: a bad tool never breaks the
// agent's loop.
//
// The host knows no tool. It speaks to plugins only through the wire
// contract in package shared.
package core
