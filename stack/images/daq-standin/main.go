// daq-standin is kpm's stand-in for a DAQ application: a process that behaves as drunc's
// processes do towards Kubernetes (listens on its port, logs, answers SIGTERM and SIGQUIT, ends
// with a chosen code), so the local stack's real node runs real lifecycles. See ../README.md.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	cfg, err := parseArgs(os.Args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", cfg.name, err)
		os.Exit(2)
	}
	if cfg.help {
		fmt.Print(usage)
		return
	}
	os.Exit(run(cfg, os.Stdout))
}

// ballast holds the memory --memory allocated, so the collector never frees it.
var ballast []byte

// run is the stand-in's life: it returns the exit code.
func run(cfg config, out io.Writer) int {
	log := func(format string, args ...any) { fmt.Fprintf(out, cfg.name+": "+format+"\n", args...) }
	// Handlers first: from the start line on, a signal is the stand-in's to handle.
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGINT, syscall.SIGHUP,
		syscall.SIGUSR1, syscall.SIGUSR2)
	argv, _ := json.Marshal(cfg.argv)
	log("start argv=%s pid=%d uid=%d gid=%d", argv, os.Getpid(), os.Getuid(), os.Getgid())
	if len(cfg.ignored) > 0 {
		ignored, _ := json.Marshal(cfg.ignored)
		log("ignoring arguments %s", ignored)
	}
	for _, name := range cfg.printEnv {
		log("%s", describeEnv(name))
	}
	if cfg.writeFile != "" {
		if err := writeLine(cfg); err != nil {
			log("write-file failed: %v", err)
			return 1
		}
		log("wrote a line to %s", cfg.writeFile)
	}
	if cfg.memory > 0 {
		ballast = touch(cfg.memory)
		log("memory allocated and touched bytes=%d", cfg.memory)
	}
	return lifecycle(cfg, signals, log)
}

// lifecycle waits for whatever ends the process: a signal it handles, --after, or a failed port.
func lifecycle(cfg config, signals <-chan os.Signal, log func(string, ...any)) int {
	var (
		listening = time.After(cfg.readyAfter)
		failed    = make(chan error, 1)
		exitTimer <-chan time.Time
		ending    <-chan time.Time // the delayed exit of a handled signal
		endCode   int
		tick      <-chan time.Time
		ticks     int
	)
	if cfg.exitSet {
		exitTimer = time.After(cfg.exitAfter)
	}
	if cfg.logEvery > 0 {
		ticker := time.NewTicker(cfg.logEvery)
		defer ticker.Stop()
		tick = ticker.C
	}
	started := time.Now()
	for {
		select {
		case <-listening:
			listening = nil
			for _, port := range cfg.ports {
				go func() { failed <- serve(cfg.name, port, log) }()
			}
		case err := <-failed:
			log("serving failed: %v", err)
			return 1
		case <-tick:
			ticks++
			log("tick n=%d uptime=%s", ticks, time.Since(started).Round(time.Millisecond))
		case <-exitTimer:
			log("exit code=%d after=%s", cfg.exitCode, cfg.exitAfter)
			return cfg.exitCode
		case <-ending:
			log("exit code=%d", endCode)
			return endCode
		case sig := <-signals:
			if code, delay, ends := onSignal(cfg, sig, log); ends && ending == nil {
				endCode, ending = code, time.After(delay)
			}
		}
	}
}

// onSignal logs the signal and says whether it ends the process, with which code and when.
func onSignal(cfg config, sig os.Signal, log func(string, ...any)) (int, time.Duration, bool) {
	name := signalName(sig)
	log("signal %s received", name)
	switch sig {
	case syscall.SIGTERM, syscall.SIGINT:
		if cfg.ignoreTerm {
			log("ignoring %s", name)
			return 0, 0, false
		}
		return cfg.termExit, cfg.termDelay, true
	case syscall.SIGQUIT:
		if cfg.ignoreQuit {
			log("ignoring %s", name)
			return 0, 0, false
		}
		return cfg.quitExit, cfg.quitDelay, true
	}
	return 0, 0, false
}

func signalName(sig os.Signal) string {
	switch sig {
	case syscall.SIGTERM:
		return "TERM"
	case syscall.SIGQUIT:
		return "QUIT"
	case syscall.SIGINT:
		return "INT"
	case syscall.SIGHUP:
		return "HUP"
	case syscall.SIGUSR1:
		return "USR1"
	case syscall.SIGUSR2:
		return "USR2"
	}
	return sig.String()
}

// describeEnv says whether a variable is set and the SHA-256 of its value, never the value.
func describeEnv(name string) string {
	value, set := os.LookupEnv(name)
	if !set {
		return fmt.Sprintf("env %s set=false", name)
	}
	sum := sha256.Sum256([]byte(value))
	return fmt.Sprintf("env %s set=true sha256=%s", name, hex.EncodeToString(sum[:]))
}

// writeLine appends one line naming the process to --write-file (a host-path mount's proof).
func writeLine(cfg config) error {
	host, _ := os.Hostname()
	f, err := os.OpenFile(cfg.writeFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%s host=%s pid=%d uid=%d gid=%d\n", cfg.name, host, os.Getpid(),
		os.Getuid(), os.Getgid())
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	return err
}

// touch allocates size bytes and writes to every page, so they count against the memory limit.
func touch(size int64) []byte {
	b := make([]byte, size)
	for i := int64(0); i < size; i += 4096 {
		b[i] = 1
	}
	return b
}

const usage = `daq-standin: kpm's stand-in for a DAQ application (stack/images/README.md)
  --port N              serve TCP port N: gRPC health (grpc.health.v1 Health/Check SERVING) and
                        HTTP (200 on any path); also -c <scheme>://host:N and -b/--bind host:N
  --ready-after D       open the ports only after D (durations: 5s, 200ms, or seconds)
  --log-every D         log a tick line every D
  --print-env NAME      log whether NAME is set and the SHA-256 of its value (repeatable)
  --term-exit N         exit N on SIGTERM or SIGINT (default 0), after --term-delay D
  --ignore-term         log SIGTERM and SIGINT and carry on
  --quit-exit N         exit N on SIGQUIT (default 0), after --quit-delay D; --ignore-quit
  --exit N --after D    exit N after D (either alone: exit 0 after D, exit N at once)
  --memory SIZE         allocate and touch SIZE (bytes, Ki, Mi, Gi, k, M, G)
  --write-file PATH     append a line naming the process to PATH (exit 1 if it cannot)
Flags take one or two dashes and --flag value or --flag=value; unknown arguments are ignored.
`
