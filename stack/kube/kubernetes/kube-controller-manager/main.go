// Command kube-controller-manager is Kubernetes' own controller manager, built as a dependency
// of this wrapper module (see ../gen-replaces.sh). Locally it provides namespace
// deletion, garbage collection of owner-referenced objects and service accounts.
package main

import (
	"os"
	_ "time/tzdata" // CronJob time zones, as upstream's main

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register" // --logging-format=json, as upstream's main
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

func main() {
	command := app.NewControllerManagerCommand()
	code := cli.Run(command)
	os.Exit(code)
}
