// The Go kit's program: the kit (kit/) serves one trial of a workload
// (workloads/, one file per workload, each registering its mechanisms).
package main

import (
	"concbench/go/kit"
	_ "concbench/go/workloads"
)

func main() { kit.Main() }
