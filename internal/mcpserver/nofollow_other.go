//go:build !unix

package mcpserver

const noFollow = 0
