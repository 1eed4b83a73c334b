package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// binary is the stand-in built once for the process tests, as the image builds it.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "daq-standin-test")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "daq_application")
	build := exec.Command("go", "build", "-trimpath", "-o", binary, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		panic(fmt.Sprintf("go build: %v\n%s", err, out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// proc is a running stand-in whose stdout is read line by line.
type proc struct {
	t     *testing.T
	cmd   *exec.Cmd
	lines chan string
	seen  []string
}

func start(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{t: t, cmd: cmd, lines: make(chan string, 100)}
	go func() {
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			p.lines <- scanner.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return p
}

// waitLine waits for a line containing want and returns it.
func (p *proc) waitLine(want string) string {
	p.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case line, open := <-p.lines:
			if !open {
				p.t.Fatalf("output ended without %q; saw %q", want, p.seen)
			}
			p.seen = append(p.seen, line)
			if strings.Contains(line, want) {
				return line
			}
		case <-deadline:
			p.t.Fatalf("no line with %q within 10 s; saw %q", want, p.seen)
		}
	}
}

// exit waits for the end of the process: its exit code, or -signal when a signal killed it.
func (p *proc) exit() int {
	p.t.Helper()
	for range p.lines {
	}
	err := p.cmd.Wait()
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		if status := exitErr.Sys().(syscall.WaitStatus); status.Signaled() {
			return -int(status.Signal())
		}
		return exitErr.ExitCode()
	}
	if err != nil {
		p.t.Fatal(err)
	}
	return 0
}

func (p *proc) signal(sig syscall.Signal) {
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatal(err)
	}
}

func freePort(t *testing.T) int {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Close()
	return listener.Addr().(*net.TCPAddr).Port
}

func TestSignalsAndExits(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		signal syscall.Signal // sent once the start line is out (0: none)
		after  string         // a line to wait for before the KILL that ends an ignoring process
		want   int
	}{
		{"exit N after a while", []string{"--exit", "3", "--after", "10ms"}, 0, "", 3},
		{"exit N at once", []string{"--exit", "4"}, 0, "", 4},
		{"SIGTERM handled: exit 0", nil, syscall.SIGTERM, "", 0},
		{"SIGTERM handled: exit N", []string{"--term-exit", "5"}, syscall.SIGTERM, "", 5},
		{"SIGTERM after a delay", []string{"--term-exit=6", "--term-delay=50ms"}, syscall.SIGTERM, "", 6},
		{"SIGINT as SIGTERM", []string{"--term-exit", "8"}, syscall.SIGINT, "", 8},
		{"SIGQUIT (drunc's preStop)", []string{"--quit-exit", "7"}, syscall.SIGQUIT, "", 7},
		{"SIGTERM ignored", []string{"--ignore-term"}, syscall.SIGTERM, "ignoring TERM", -9},
		{"SIGQUIT ignored", []string{"--ignore-quit"}, syscall.SIGQUIT, "ignoring QUIT", -9},
		{"SIGHUP only logged", nil, syscall.SIGHUP, "signal HUP received", -9},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := start(t, nil, tc.args...)
			p.waitLine("daq_application: start argv=")
			if tc.signal != 0 {
				p.signal(tc.signal)
			}
			if tc.after != "" {
				p.waitLine(tc.after)
				p.signal(syscall.SIGKILL)
			}
			if got := p.exit(); got != tc.want {
				t.Errorf("exit = %d, want %d; output %q", got, tc.want, p.seen)
			}
		})
	}
}

func TestTermDelayHoldsTheExit(t *testing.T) {
	p := start(t, nil, "--term-delay", "300ms", "--term-exit", "2")
	p.waitLine("start argv=")
	sent := time.Now()
	p.signal(syscall.SIGTERM)
	p.waitLine("signal TERM received")
	if got := p.exit(); got != 2 {
		t.Fatalf("exit = %d, want 2", got)
	}
	if held := time.Since(sent); held < 300*time.Millisecond {
		t.Errorf("exited %s after SIGTERM, before --term-delay 300ms", held)
	}
}

func TestStartLineAndEnvironment(t *testing.T) {
	p := start(t, []string{"KPM_SECRET=s3cret", "KPM_EMPTY="},
		"--name", "ru-01", "--print-env", "KPM_SECRET", "--print-env", "KPM_EMPTY",
		"--print-env", "KPM_UNSET", "--exit", "0")
	line := p.waitLine("start argv=")
	want := fmt.Sprintf(`daq_application: start argv=["%s","--name","ru-01",`, binary)
	if !strings.HasPrefix(line, want) || !strings.Contains(line, fmt.Sprintf("pid=%d", p.cmd.Process.Pid)) ||
		!strings.Contains(line, fmt.Sprintf("uid=%d gid=%d", os.Getuid(), os.Getgid())) {
		t.Errorf("start line %q", line)
	}
	p.waitLine(`ignoring arguments ["--name","ru-01"]`)
	sum := sha256.Sum256([]byte("s3cret"))
	p.waitLine("env KPM_SECRET set=true sha256=" + hex.EncodeToString(sum[:]))
	empty := sha256.Sum256(nil)
	p.waitLine("env KPM_EMPTY set=true sha256=" + hex.EncodeToString(empty[:]))
	p.waitLine("env KPM_UNSET set=false")
	p.exit()
	for _, line := range p.seen {
		if strings.Contains(line, "s3cret") {
			t.Errorf("the value was printed: %q", line)
		}
	}
}

func TestWriteFileAndMemory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out")
	p := start(t, nil, "--write-file", path, "--memory", "16Mi", "--exit", "0")
	p.waitLine("wrote a line to " + path)
	p.waitLine(fmt.Sprintf("memory allocated and touched bytes=%d", 16<<20))
	if got := p.exit(); got != 0 {
		t.Fatalf("exit = %d", got)
	}
	content, err := os.ReadFile(path)
	if err != nil || !strings.HasPrefix(string(content), "daq_application host=") {
		t.Errorf("file %q, %v", content, err)
	}

	failing := start(t, nil, "--write-file", filepath.Join(t.TempDir(), "missing", "out"))
	failing.waitLine("write-file failed:")
	if got := failing.exit(); got != 1 {
		t.Errorf("exit = %d, want 1 when the file cannot be written", got)
	}
}

func TestBadFlagExits2NamingIt(t *testing.T) {
	p := start(t, nil, "--port", "http")
	p.waitLine(`daq_application: flag --port: "http" is not a TCP port`)
	if got := p.exit(); got != 2 {
		t.Errorf("exit = %d, want 2", got)
	}
}

func TestTicks(t *testing.T) {
	p := start(t, nil, "--log-every", "20ms")
	p.waitLine("tick n=1 ")
	p.waitLine("tick n=2 ")
}

func TestPortServesGrpcHealthHttpAndTcp(t *testing.T) {
	port := freePort(t)
	p := start(t, nil, "-c", fmt.Sprintf("grpc://0.0.0.0:%d", port), "--ready-after", "200ms")
	started := time.Now()
	p.waitLine("start argv=")
	p.waitLine(fmt.Sprintf("listening port=%d", port))
	if waited := time.Since(started); waited < 200*time.Millisecond {
		t.Errorf("listening %s after start, before --ready-after 200ms", waited)
	}
	address := fmt.Sprintf("127.0.0.1:%d", port)
	conn, err := net.Dial("tcp", address) // what a tcpSocket probe does
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	checkGrpcHealth(t, address)
	checkHTTP(t, address)
}

func checkGrpcHealth(t *testing.T, address string) {
	t.Helper()
	client, err := grpc.NewClient(address, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	reply, err := healthpb.NewHealthClient(client).Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil || reply.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("Health/Check = %v, %v; want SERVING", reply, err)
	}
}

func checkHTTP(t *testing.T, address string) {
	t.Helper()
	res, err := http.Get("http://" + address + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || string(body) != "daq_application ready\n" {
		t.Errorf("GET = %d %q", res.StatusCode, body)
	}
}
