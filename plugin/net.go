package plugin

import "net/http"

// Net is a tool's access to the network, injected so that tests never
// leave the machine. *http.Client satisfies it.
type Net interface {
	Do(req *http.Request) (*http.Response, error)
}
