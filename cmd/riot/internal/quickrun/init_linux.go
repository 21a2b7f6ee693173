package quickrun

import "os"

// The quick path of an attached `riot run` runs here, before riot's
// libraries initialise (package quick's doc); only on Linux, whose
// terminal and socket calls it makes through package syscall.
func init() {
	if code, ok := Main(os.Args[1:]); ok {
		os.Exit(code)
	}
}
