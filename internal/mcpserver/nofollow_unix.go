//go:build unix

package mcpserver

import "syscall"

const noFollow = syscall.O_NOFOLLOW
