package quick

import "os"

// The quick path runs here, before riot's libraries initialise (doc.go).
func init() {
	if code, ok := Main(os.Args[1:]); ok {
		os.Exit(code)
	}
}
