// Command kubelet is Kubernetes' own node agent, built as a dependency of this
// wrapper module because `go install k8s.io/kubernetes/cmd/kubelet@…` fails on the
// staging replace directives (kubernetes #79384). It runs the local stack's real node.
package main

import (
	"context"
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register" // --logging-format=json, as upstream's main
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kubelet/app"
)

func main() {
	command := app.NewKubeletCommand(context.Background())
	code := cli.Run(command)
	os.Exit(code)
}
