//go:build riot_protocol2 && !riot_protocol1

package main

var protocols = []int{1, 2}
