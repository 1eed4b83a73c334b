// Command kube-scheduler is Kubernetes' own scheduler, built as a dependency of this wrapper
// module (see ../gen-replaces.sh): it binds pods that only carry a nodeSelector
// to the fake kwok nodes, as a real cluster would.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register" // --logging-format=json, as upstream's main
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
)

func main() {
	command := app.NewSchedulerCommand()
	code := cli.Run(command)
	os.Exit(code)
}
