// Package mcpserver serves a core.Host's tools over the Model Context
// Protocol, on stdio or Streamable HTTP. It owns what the MCP SDK leaves to
// the server: a stdio connection that answers malformed JSON-RPC lines and
// keeps serving, no answer to a cancelled request, tools/list in the host's
// order, tool annotations, progress notifications, elicitation for the
// permission chain, spilled results as resources, and shutdown that stops
// every call in flight.
package mcpserver
