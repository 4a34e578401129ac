// Goroutines and a channel: under Valgrind the goroutines' stacks lie
// above the main thread's, so each switch (gogo, mcall) is a switch to a
// stack above or back.
package main

import "fmt"

//go:noinline
func square(i int) int { return i * i }

//go:noinline
func produce(n int, out chan<- int) {
	for i := 0; i < n; i++ {
		out <- square(i)
	}
	close(out)
}

//go:noinline
func consume(in <-chan int, done chan<- int) {
	s := 0
	for v := range in {
		s += v
	}
	done <- s
}

func main() {
	c := make(chan int)
	done := make(chan int)
	go produce(2000, c)
	go consume(c, done)
	fmt.Println(<-done)
}
