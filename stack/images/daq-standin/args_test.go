package main

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseArgs(t *testing.T) {
	cases := []struct {
		name string
		argv []string
		want func(c *config)
	}{
		{"nothing", []string{"daq-standin"}, func(c *config) {}},
		{"argv[0] names the process", []string{"/usr/local/bin/daq_application"},
			func(c *config) { c.name = "daq_application" }},
		{"--port", []string{"x", "--port", "3333"}, func(c *config) { c.ports = []int{3333} }},
		{"-port=", []string{"x", "-port=3333"}, func(c *config) { c.ports = []int{3333} }},
		{"drunc's -c grpc://host:N", []string{"drunc-controller", "-c", "grpc://0.0.0.0:3334"},
			func(c *config) { c.name = "drunc-controller"; c.ports = []int{3334} }},
		{"-c without a port is left alone", []string{"x", "-c", "conf.json"}, func(c *config) {}},
		{"gunicorn's -b host:N", []string{"gunicorn", "-b", "0.0.0.0:5000", "--workers=1", "app:app"},
			func(c *config) {
				c.name = "gunicorn"
				c.ports = []int{5000}
				c.ignored = []string{"--workers=1", "app:app"}
			}},
		{"a port found twice is served once", []string{"x", "--port", "1", "-c", "rest://h:1"},
			func(c *config) { c.ports = []int{1} }},
		{"unknown flags and words are ignored",
			[]string{"x", "--name", "ru-01", "--session", "s", "-d", "--port", "9"},
			func(c *config) {
				c.ports = []int{9}
				c.ignored = []string{"--name", "ru-01", "--session", "s", "-d"}
			}},
		{"durations", []string{"x", "--ready-after", "1.5s", "--log-every=2", "--term-delay", "200ms"},
			func(c *config) {
				c.readyAfter = 1500 * time.Millisecond
				c.logEvery = 2 * time.Second
				c.termDelay = 200 * time.Millisecond
			}},
		{"signals", []string{"x", "--ignore-term", "--term-exit", "3", "--quit-exit", "4", "--ignore-quit",
			"--quit-delay", "1s"},
			func(c *config) {
				c.ignoreTerm, c.termExit, c.quitExit, c.ignoreQuit = true, 3, 4, true
				c.quitDelay = time.Second
			}},
		{"--exit and --after", []string{"x", "--exit", "3", "--after", "2s"},
			func(c *config) { c.exitCode, c.exitAfter, c.exitSet = 3, 2*time.Second, true }},
		{"--exit alone exits at once", []string{"x", "--exit", "7"},
			func(c *config) { c.exitCode, c.exitSet = 7, true }},
		{"--after alone exits 0", []string{"x", "--after", "1"},
			func(c *config) { c.exitAfter, c.exitSet = time.Second, true }},
		{"--memory", []string{"x", "--memory", "64Mi"}, func(c *config) { c.memory = 64 << 20 }},
		{"--print-env repeats", []string{"x", "--print-env", "A", "--print-env=B"},
			func(c *config) { c.printEnv = []string{"A", "B"} }},
		{"--write-file", []string{"x", "--write-file", "/data/out"}, func(c *config) { c.writeFile = "/data/out" }},
		{"--help", []string{"x", "-help"}, func(c *config) { c.help = true }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseArgs(tc.argv)
			if err != nil {
				t.Fatalf("parseArgs(%q): %v", tc.argv, err)
			}
			want := config{argv: tc.argv, name: "x"}
			if tc.argv[0] == "daq-standin" {
				want.name = "daq-standin"
			}
			tc.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("parseArgs(%q)\n got %+v\nwant %+v", tc.argv, got, want)
			}
		})
	}
}

func TestParseArgsRefusesBadValuesNamingTheFlag(t *testing.T) {
	cases := []struct {
		argv []string
		want string
	}{
		{[]string{"x", "--port", "http"}, `flag --port: "http" is not a TCP port`},
		{[]string{"x", "--port", "70000"}, `flag --port: "70000" is not a TCP port`},
		{[]string{"x", "--port"}, "flag --port needs a value"},
		{[]string{"x", "--exit", "256"}, `flag --exit: "256" is not an exit code`},
		{[]string{"x", "--term-exit=-1"}, `flag --term-exit: "-1" is not an exit code`},
		{[]string{"x", "--after", "soon"}, `flag --after: "soon" is not a duration`},
		{[]string{"x", "--ready-after", "-1s"}, `flag --ready-after: "-1s" is not a duration`},
		{[]string{"x", "--memory", "lots"}, `flag --memory: "lots" is not a size`},
		{[]string{"x", "--memory", "2Ti"}, `flag --memory: "2Ti" is not a size`},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.argv[1:], " "), func(t *testing.T) {
			_, err := parseArgs(tc.argv)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("parseArgs(%q) = %v, want an error starting %q", tc.argv, err, tc.want)
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	cases := map[string]int64{"0": 0, "4096": 4096, "1Ki": 1024, "64Mi": 64 << 20, "1Gi": 1 << 30,
		"5k": 5000, "5K": 5000, "3M": 3000000, "1G": 1000000000}
	for in, want := range cases {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}
