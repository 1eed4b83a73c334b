// Command kube-apiserver is Kubernetes' own API server, built as a dependency of
// this wrapper module because `go install k8s.io/kubernetes/cmd/kube-apiserver@…`
// fails on the staging replace directives (kubernetes #79384).
package main

import (
	"os"
	_ "time/tzdata" // CronJob time zones, as upstream's main

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register" // --logging-format=json, as upstream's main
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	command := app.NewAPIServerCommand()
	code := cli.Run(command)
	os.Exit(code)
}
