package main

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

func TestExitsZeroOnTermAndInt(t *testing.T) {
	binary := filepath.Join(t.TempDir(), "pause")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		cmd := exec.Command(binary)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(stdout)
		// Its first line says the handlers are set.
		if !lines.Scan() || lines.Text() != "pause: waiting for SIGTERM" {
			t.Fatalf("first line %q", lines.Text())
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		for lines.Scan() {
		}
		if err := cmd.Wait(); err != nil {
			t.Errorf("after %v: %v, want exit 0", sig, err)
		}
	}
}
