// SPDX-License-Identifier: GPL-2.0-or-later

// A small Go program for tests/peer/producers.sh: it writes a CPU profile
// of some recursive and looping work (about half a second), then a heap
// profile of what it allocated, for `go tool pprof -callgrind` to convert.
//
//	go run main.go CPU-PROFILE HEAP-PROFILE
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

//go:noinline
func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

//go:noinline
func mix(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i % 7
	}
	return s
}

//go:noinline
func work(rounds int) int {
	t := 0
	for i := 0; i < rounds; i++ {
		t += fib(27) + mix(4000000)
	}
	return t
}

var keep [][]byte

//go:noinline
func grow(n, size int) {
	for i := 0; i < n; i++ {
		keep = append(keep, make([]byte, size))
	}
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: main CPU-PROFILE HEAP-PROFILE")
		os.Exit(2)
	}
	runtime.MemProfileRate = 1024
	cpu, err := os.Create(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	t := work(90)
	pprof.StopCPUProfile()
	cpu.Close()
	grow(3000, 512)
	grow(200, 32768)
	heap, err := os.Create(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pprof.WriteHeapProfile(heap)
	heap.Close()
	fmt.Println(t, len(keep))
}
