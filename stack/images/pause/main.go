// pause is the local stack's pod sandbox: it holds the pod's namespaces, reaps orphans when it is
// the pod's init, and exits 0 on SIGTERM or SIGINT. Its image is the smallest kpm builds: this
// one static binary.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	fmt.Println("pause: waiting for SIGTERM")
	for sig := range signals {
		if sig == syscall.SIGCHLD {
			reap()
			continue
		}
		fmt.Printf("pause: %v, exiting\n", sig)
		os.Exit(0)
	}
}

// reap collects every exited child, so none stays a zombie.
func reap() {
	for {
		pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}
