//go:build !riot_protocol1

package main

// protocols are the versions it serves; the riot_protocol1 tag makes it a
// plugin of protocol 1 alone.
var protocols = []int{1, 2}
