// Command etcd is a thin wrapper around etcd's own main: `go install` of the
// upstream server module fails on its replace directives (etcd #18501), so we
// build it as a dependency of this module instead.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
