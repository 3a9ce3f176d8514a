// go_goroutines: eight goroutines sleep, lock and send on a channel; then a
// two-second sleep. Prints the sum, the arrival order (which the schedule
// decides), the measured sleep and the year the clock reads.
package main

import (
	"fmt"
	"math/rand"
	"sync"
	"time"
)

func main() {
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	ch := make(chan int, 4)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			time.Sleep(time.Duration(i) * time.Millisecond)
			mu.Lock()
			total += i
			mu.Unlock()
			ch <- i
		}(i)
	}
	go func() { wg.Wait(); close(ch) }()
	order := []int{}
	for v := range ch {
		order = append(order, v)
	}
	start := time.Now()
	time.Sleep(2 * time.Second)
	fmt.Println("total", total, "order", order, "slept", time.Since(start).Round(time.Millisecond), "rand", rand.Int63(), "year", time.Now().Year())
}
