//go:build !riot_protocol1 && !riot_protocol2

package main

// protocols are the versions it serves; the riot_protocol1 and
// riot_protocol2 tags make it a plugin of the versions up to theirs.
var protocols = []int{1, 2, 3}
