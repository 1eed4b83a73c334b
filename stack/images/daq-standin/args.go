package main

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// config is what a command line asks of the stand-in. Zero values mean "not asked".
type config struct {
	name       string        // the executable's name (argv[0]'s base name): daq_application, …
	argv       []string      // the whole command line, for the start line
	ports      []int         // ports to serve, in the order found, without repeats
	readyAfter time.Duration // listen only after this long
	logEvery   time.Duration // a tick line this often
	printEnv   []string      // variables to report (set or not, SHA-256 of the value)
	ignoreTerm bool
	termExit   int
	termDelay  time.Duration
	ignoreQuit bool
	quitExit   int
	quitDelay  time.Duration
	exitCode   int
	exitAfter  time.Duration
	exitSet    bool // --exit or --after given: exit exitCode after exitAfter
	memory     int64
	writeFile  string
	ignored    []string // arguments the stand-in does not know, kept for the start line
	help       bool
}

// flagSpec is one flag of ours: whether it takes a value and how it applies.
type flagSpec struct {
	takesValue bool
	apply      func(c *config, value string) error
}

var flags = map[string]flagSpec{
	"port":        {true, func(c *config, v string) error { return c.addPort(v) }},
	"c":           {true, func(c *config, v string) error { c.addURLPort(v); return nil }},
	"bind":        {true, func(c *config, v string) error { c.addBindPort(v); return nil }},
	"b":           {true, func(c *config, v string) error { c.addBindPort(v); return nil }},
	"ready-after": {true, durationInto(func(c *config) *time.Duration { return &c.readyAfter })},
	"log-every":   {true, durationInto(func(c *config) *time.Duration { return &c.logEvery })},
	"print-env":   {true, func(c *config, v string) error { c.printEnv = append(c.printEnv, v); return nil }},
	"ignore-term": {false, func(c *config, _ string) error { c.ignoreTerm = true; return nil }},
	"term-exit":   {true, exitCodeInto(func(c *config) *int { return &c.termExit })},
	"term-delay":  {true, durationInto(func(c *config) *time.Duration { return &c.termDelay })},
	"ignore-quit": {false, func(c *config, _ string) error { c.ignoreQuit = true; return nil }},
	"quit-exit":   {true, exitCodeInto(func(c *config) *int { return &c.quitExit })},
	"quit-delay":  {true, durationInto(func(c *config) *time.Duration { return &c.quitDelay })},
	"exit":        {true, exitAt(exitCodeInto(func(c *config) *int { return &c.exitCode }))},
	"after":       {true, exitAt(durationInto(func(c *config) *time.Duration { return &c.exitAfter }))},
	"memory":      {true, func(c *config, v string) (err error) { c.memory, err = parseSize(v); return }},
	"write-file":  {true, func(c *config, v string) error { c.writeFile = v; return nil }},
	"help":        {false, func(c *config, _ string) error { c.help = true; return nil }},
}

// parseArgs reads argv (argv[0] included). Flags take one or two dashes and `--flag value` or
// `--flag=value`; anything else is kept in ignored, so drunc-shaped command lines run unchanged.
// A bad value of a flag of ours is an error naming the flag.
func parseArgs(argv []string) (config, error) {
	c := config{argv: argv, name: "daq-standin"}
	if len(argv) > 0 {
		c.name = filepath.Base(argv[0])
	}
	for i := 1; i < len(argv); i++ {
		word := argv[i]
		name, value, inline := splitFlag(word)
		spec, ours := flags[name]
		if !ours {
			c.ignored = append(c.ignored, word)
			continue
		}
		if spec.takesValue && !inline {
			if i+1 >= len(argv) {
				return c, fmt.Errorf("flag %s needs a value", word)
			}
			i++
			value = argv[i]
		}
		if err := spec.apply(&c, value); err != nil {
			return c, fmt.Errorf("flag --%s: %w", name, err)
		}
	}
	return c, nil
}

// splitFlag turns "--name=value" into ("name", "value", true) and "-name" into ("name", "", false);
// a word that is not a flag gives an empty name.
func splitFlag(arg string) (name, value string, inline bool) {
	if !strings.HasPrefix(arg, "-") || arg == "-" || arg == "--" {
		return "", "", false
	}
	name = strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
	if eq := strings.IndexByte(name, '='); eq >= 0 {
		return name[:eq], name[eq+1:], true
	}
	return name, "", false
}

func (c *config) addPort(v string) error {
	port, err := strconv.Atoi(v)
	if err != nil || port < 1 || port > 65535 {
		return fmt.Errorf("%q is not a TCP port (1-65535)", v)
	}
	for _, p := range c.ports {
		if p == port {
			return nil
		}
	}
	c.ports = append(c.ports, port)
	return nil
}

// addURLPort serves the port of drunc's `-c grpc://host:N` (any scheme); a value without a port
// is some other use of -c and is left alone.
func (c *config) addURLPort(v string) {
	u, err := url.Parse(v)
	if err != nil || u.Port() == "" {
		return
	}
	_ = c.addPort(u.Port())
}

// addBindPort serves the port of gunicorn's `-b host:N` (drunc's local connection server).
func (c *config) addBindPort(v string) {
	colon := strings.LastIndexByte(v, ':')
	if colon < 0 {
		return
	}
	_ = c.addPort(v[colon+1:])
}

func durationInto(field func(*config) *time.Duration) func(*config, string) error {
	return func(c *config, v string) error {
		d, err := parseDuration(v)
		if err == nil {
			*field(c) = d
		}
		return err
	}
}

func exitCodeInto(field func(*config) *int) func(*config, string) error {
	return func(c *config, v string) error {
		code, err := strconv.Atoi(v)
		if err != nil || code < 0 || code > 255 {
			return fmt.Errorf("%q is not an exit code (0-255)", v)
		}
		*field(c) = code
		return nil
	}
}

func exitAt(apply func(*config, string) error) func(*config, string) error {
	return func(c *config, v string) error {
		c.exitSet = true
		return apply(c, v)
	}
}

// parseDuration reads Go durations ("1.5s", "200ms") and bare numbers as seconds ("3").
func parseDuration(v string) (time.Duration, error) {
	if seconds, err := strconv.ParseFloat(v, 64); err == nil && seconds >= 0 {
		return time.Duration(seconds * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration (e.g. 5s, 200ms, 3)", v)
	}
	return d, nil
}

var sizeUnits = []struct {
	suffix string
	factor int64
}{
	{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30},
	{"k", 1000}, {"K", 1000}, {"M", 1000 * 1000}, {"G", 1000 * 1000 * 1000},
}

// parseSize reads a size as Kubernetes writes quantities: bytes, or a number with Ki, Mi, Gi,
// k, M, G.
func parseSize(v string) (int64, error) {
	number, factor := v, int64(1)
	for _, unit := range sizeUnits {
		if strings.HasSuffix(v, unit.suffix) {
			number, factor = strings.TrimSuffix(v, unit.suffix), unit.factor
			break
		}
	}
	n, err := strconv.ParseInt(number, 10, 64)
	if err != nil || n < 0 || n > (1<<40)/factor {
		return 0, fmt.Errorf("%q is not a size (bytes, or a number with Ki, Mi, Gi, k, M, G)", v)
	}
	return n * factor, nil
}
