//go:build riot_protocol1

package main

var protocols = []int{1}
