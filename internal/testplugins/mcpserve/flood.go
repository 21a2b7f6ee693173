package main

import (
	"bytes"
	"os"
	"strconv"
)

// flood is the flood mode's echo of "flood": it writes its pid to the file
// MCPSERVE_PIDFILE names, then MCPSERVE_FLOOD_BYTES (300 MB unless set) of
// 'a' on stdout without a newline, as a broken server might, then waits:
// only a client that bounds what it reads ends the call.
func flood() {
	if f := os.Getenv("MCPSERVE_PIDFILE"); f != "" {
		_ = os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o600)
	}
	n := 300_000_000
	if v, err := strconv.Atoi(os.Getenv("MCPSERVE_FLOOD_BYTES")); err == nil {
		n = v
	}
	chunk := bytes.Repeat([]byte("a"), 64<<10)
	for n > 0 {
		w, err := os.Stdout.Write(chunk[:min(n, len(chunk))])
		if err != nil {
			os.Exit(1)
		}
		n -= w
	}
	select {}
}
