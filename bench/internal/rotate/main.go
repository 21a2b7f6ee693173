// Command rotate runs commands in rotation, one run of each per round, each
// round starting one command further along, and prints each command's
// median and minimum wall time and its ratio to the first command's, and
// its median CPU time (user and system, its waited-for children's
// included, as wait4 counts them). On a
// machine whose load moves from one second to the next, commands timed in
// the same rounds are compared under the same load, which hyperfine's
// all-runs-of-one-then-the-next cannot give.
//
//	rotate -n 100 -w 5 'name=command args' 'name2=command args' ...
//
// A command is split on spaces (no shell), and its leading NAME=value
// words set its environment, as env(1) would without a process of its
// own; its output is discarded, and a run that fails stops the whole
// measurement.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

func main() {
	rounds := flag.Int("n", 50, "rounds")
	warm := flag.Int("w", 3, "rounds run first and not counted")
	flag.Parse()
	var names []string
	var argvs, envs [][]string
	for _, a := range flag.Args() {
		name, cmd, ok := strings.Cut(a, "=")
		if !ok || strings.TrimSpace(cmd) == "" {
			fmt.Fprintf(os.Stderr, "rotate: %q is not name=command\n", a)
			os.Exit(2)
		}
		argv := strings.Fields(cmd)
		n := 0
		for n < len(argv)-1 && strings.Contains(argv[n], "=") && !strings.HasPrefix(argv[n], "/") {
			n++
		}
		names, argvs, envs = append(names, name), append(argvs, argv[n:]), append(envs, argv[:n])
	}
	if len(argvs) == 0 {
		fmt.Fprintln(os.Stderr, "rotate: no commands")
		os.Exit(2)
	}
	times := make([][]time.Duration, len(argvs))
	cpus := make([][]time.Duration, len(argvs))
	for r := 0; r < *warm+*rounds; r++ {
		for k := range argvs {
			i := (r + k) % len(argvs)
			start := time.Now()
			cmd := exec.Command(argvs[i][0], argvs[i][1:]...)
			if len(envs[i]) > 0 {
				cmd.Env = append(os.Environ(), envs[i]...)
			}
			if err := cmd.Run(); err != nil {
				fmt.Fprintf(os.Stderr, "rotate: %s: %v\n", names[i], err)
				os.Exit(1)
			}
			if r >= *warm {
				times[i] = append(times[i], time.Since(start))
				cpus[i] = append(cpus[i], cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
			}
		}
	}
	med := make([]time.Duration, len(argvs))
	low := make([]time.Duration, len(argvs))
	cpu := make([]time.Duration, len(argvs))
	for i, t := range times {
		slices.Sort(t)
		slices.Sort(cpus[i])
		med[i], low[i], cpu[i] = t[len(t)/2], t[0], cpus[i][len(t)/2]
	}
	for i, name := range names {
		fmt.Printf("%-14s median %6.2f ms (%.2fx %s)  min %6.2f ms (%.2fx)  cpu %6.2f ms\n", name,
			ms(med[i]), float64(med[i])/float64(med[0]), names[0], ms(low[i]), float64(low[i])/float64(low[0]), ms(cpu[i]))
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
