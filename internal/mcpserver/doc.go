// Package mcpserver serves a core.Host's tools over the Model Context
// Protocol, on stdio or Streamable HTTP. It owns what the MCP SDK leaves to
// the server: a stdio connection that answers malformed JSON-RPC lines and
// keeps serving, no answer to a cancelled request (stdio and HTTP), HTTP
// routed by revision (2026-07-28 stateless, earlier ones with a session
// that a request must name), tools/list in the host's order with the
// tools wrapped servers add appended and announced, tool annotations,
// progress notifications, elicitation for the permission chain, spilled
// results as resources, results valid against each revision's published
// schema (testdata/schema), and shutdown that stops every call in flight.
package mcpserver
