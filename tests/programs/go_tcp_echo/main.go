// go_tcp_echo: a Go TCP server (goroutine per connection) and 3 clients in
// one process over 127.0.0.1, through Go's netpoller (epoll, non-blocking
// connect). Prints each client's reply in client order, then "ok".
// Refuses to run unless lo is its network namespace's only interface.
package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strings"
)

func requireLoOnly() {
	data, err := os.ReadFile("/proc/self/net/dev")
	if err != nil {
		fmt.Fprintln(os.Stderr, "netcheck: cannot read /proc/self/net/dev; refusing to run")
		os.Exit(3)
	}
	for _, line := range strings.Split(string(data), "\n")[2:] {
		name := strings.TrimSpace(strings.SplitN(line, ":", 2)[0])
		if name != "" && name != "lo" {
			fmt.Fprintf(os.Stderr, "netcheck: interface %s present: refusing to run\n", name)
			os.Exit(3)
		}
	}
}

func main() {
	requireLoOnly()
	ln, err := net.Listen("tcp", "127.0.0.1:7600")
	if err != nil {
		panic(err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					c.Write([]byte(strings.ToUpper(line)))
				}
			}(c)
		}
	}()
	replies := make([]chan string, 3)
	for i := range replies {
		replies[i] = make(chan string, 1)
		go func(i int) {
			c, err := net.Dial("tcp", "127.0.0.1:7600")
			if err != nil {
				replies[i] <- "dial: " + err.Error()
				return
			}
			defer c.Close()
			fmt.Fprintf(c, "hello from client %d\n", i)
			line, err := bufio.NewReader(c).ReadString('\n')
			if err != nil {
				replies[i] <- "read: " + err.Error()
				return
			}
			replies[i] <- strings.TrimSpace(line)
		}(i)
	}
	for i := range replies {
		fmt.Printf("client %d: %s\n", i, <-replies[i])
	}
	fmt.Println("ok")
}
