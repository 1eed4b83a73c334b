// Command rawlimit measures the API server's own limit for the objects kpm writes: it creates N
// pods and their headless Services straight through the API with client-go (unlimited QPS, many
// workers), waits until every pod runs on the kwok nodes, then deletes them all and waits until
// every pod is gone — releasing a termination finalizer as kpm's watcher does. It prints one JSON
// object of timings on stdout; `npm run bench:e2e` compares kpm against it.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

type options struct {
	kubeconfig  string
	namespace   string
	pods        int
	workers     int
	nodes       []string
	label       string
	finalizer   string
	graceSecond int64
	timeout     time.Duration
}

// Timings, in milliseconds from the first request of each phase.
type result struct {
	Pods      int   `json:"pods"`
	Workers   int   `json:"workers"`
	CreatedMs int64 `json:"createdMs"`
	RunningMs int64 `json:"runningMs"`
	DeletedMs int64 `json:"deletedMs"`
	GoneMs    int64 `json:"goneMs"`
}

func main() {
	opts := parseFlags()
	client, err := newClient(opts.kubeconfig)
	if err != nil {
		fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), opts.timeout)
	defer cancel()
	res, err := run(ctx, client, opts)
	if err != nil {
		fail(err)
	}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		fail(err)
	}
}

func parseFlags() options {
	var o options
	var nodes string
	flag.StringVar(&o.kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the cluster")
	flag.StringVar(&o.namespace, "namespace", "", "namespace to create the pods in (created and deleted)")
	flag.IntVar(&o.pods, "pods", 100, "pods (and headless Services) to create")
	flag.IntVar(&o.workers, "workers", 64, "concurrent request workers")
	flag.StringVar(&nodes, "nodes", "kpm-node-1,kpm-node-2,kpm-node-3", "nodes to bind pods to, round robin (kpm assigns nodes too)")
	flag.StringVar(&o.label, "label", "bench.kpm.daq/run", "label key marking every object of this run (its value is the namespace)")
	flag.StringVar(&o.finalizer, "finalizer", "bench.kpm.daq/termination-record", "finalizer each pod carries and this program releases once the pod is terminal (empty: none)")
	flag.Int64Var(&o.graceSecond, "grace-seconds", 30, "grace period of the deletes")
	flag.DurationVar(&o.timeout, "timeout", 10*time.Minute, "give up after this long")
	flag.Parse()
	if o.namespace == "" {
		fail(fmt.Errorf("-namespace is required"))
	}
	o.nodes = splitComma(nodes)
	return o
}

func newClient(kubeconfig string) (*kubernetes.Clientset, error) {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	// Unlimited: the point is the API server's limit, not client-go's rate limiter.
	config.QPS = -1
	config.Burst = 0
	return kubernetes.NewForConfig(config)
}

func run(ctx context.Context, client *kubernetes.Clientset, o options) (*result, error) {
	core := client.CoreV1()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: o.namespace, Labels: map[string]string{o.label: o.namespace}}}
	if _, err := core.Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("creating namespace %s: %w", o.namespace, err)
	}
	defer cleanUp(client, o)
	res := &result{Pods: o.pods, Workers: o.workers}
	watch, err := startPodWatch(ctx, client, o)
	if err != nil {
		return nil, err
	}
	defer watch.stop()

	started := time.Now()
	if err := forEach(ctx, o.pods, o.workers, func(i int) error { return createOne(ctx, client, o, i) }); err != nil {
		return nil, err
	}
	res.CreatedMs = time.Since(started).Milliseconds()
	if err := watch.waitRunning(ctx, o.pods); err != nil {
		return nil, err
	}
	res.RunningMs = time.Since(started).Milliseconds()

	started = time.Now()
	grace := o.graceSecond
	if err := forEach(ctx, o.pods, o.workers, func(i int) error {
		return core.Pods(o.namespace).Delete(ctx, podName(i), metav1.DeleteOptions{GracePeriodSeconds: &grace})
	}); err != nil {
		return nil, err
	}
	res.DeletedMs = time.Since(started).Milliseconds()
	if err := watch.waitGone(ctx); err != nil {
		return nil, err
	}
	res.GoneMs = time.Since(started).Milliseconds()
	return res, nil
}

func podName(i int) string { return fmt.Sprintf("raw-%05d", i) }

// createOne writes what kpm's boot-worker writes for one process: the pod, then its headless
// Service owned by the pod.
func createOne(ctx context.Context, client *kubernetes.Clientset, o options, i int) error {
	name := podName(i)
	labels := map[string]string{o.label: o.namespace, "app": name}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: o.namespace, Labels: labels},
		Spec: corev1.PodSpec{
			NodeName:                      o.nodes[i%len(o.nodes)],
			RestartPolicy:                 corev1.RestartPolicyNever,
			TerminationGracePeriodSeconds: &o.graceSecond,
			Containers: []corev1.Container{{
				Name:    "main",
				Image:   "kpm.invalid/daq-app:1.0",
				Command: []string{"/bin/bash", "-c", "exec daq_application"},
			}},
		},
	}
	if o.finalizer != "" {
		pod.Finalizers = []string{o.finalizer}
	}
	created, err := client.CoreV1().Pods(o.namespace).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("creating pod %s: %w", name, err)
	}
	isController := true
	service := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: o.namespace,
			Labels:    labels,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Pod", Name: name, UID: created.UID, Controller: &isController,
			}},
		},
		Spec: corev1.ServiceSpec{
			ClusterIP: corev1.ClusterIPNone,
			Selector:  map[string]string{"app": name},
			Ports:     []corev1.ServicePort{{Name: "discovery", Port: 80, TargetPort: intstr.FromInt32(80)}},
		},
	}
	if _, err := client.CoreV1().Services(o.namespace).Create(ctx, service, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating service %s: %w", name, err)
	}
	return nil
}

// forEach runs work(0..n-1) on `workers` goroutines and returns the first error.
func forEach(ctx context.Context, n, workers int, work func(int) error) error {
	indexes := make(chan int)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range indexes {
				if err := work(i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	var first error
feed:
	for i := 0; i < n; i++ {
		select {
		case indexes <- i:
		case first = <-errs:
			break feed
		case <-ctx.Done():
			first = ctx.Err()
			break feed
		}
	}
	close(indexes)
	wg.Wait()
	if first == nil {
		select {
		case first = <-errs:
		default:
		}
	}
	return first
}

// cleanUp deletes the namespace (releasing any finalizer left after a failure).
func cleanUp(client *kubernetes.Clientset, o options) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pods, err := client.CoreV1().Pods(o.namespace).List(ctx, metav1.ListOptions{})
	if err == nil {
		for _, pod := range pods.Items {
			if len(pod.Finalizers) > 0 {
				releaseFinalizer(ctx, client, o, pod.Name)
			}
		}
	}
	_ = client.CoreV1().Namespaces().Delete(ctx, o.namespace, metav1.DeleteOptions{})
}

func releaseFinalizer(ctx context.Context, client *kubernetes.Clientset, o options, name string) {
	patch := []byte(`{"metadata":{"finalizers":null}}`)
	_, _ = client.CoreV1().Pods(o.namespace).Patch(ctx, name, "application/merge-patch+json", patch, metav1.PatchOptions{})
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "rawlimit: %v\n", err)
	os.Exit(1)
}
