package main

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// podWatch follows the run's pods with one watch (as an informer would, without its cache) and
// releases the finalizer of every pod that is terminal while being deleted, as kpm's watcher does
// after recording the termination.
type podWatch struct {
	mu      sync.Mutex
	changed *sync.Cond
	phases  map[string]corev1.PodPhase
	err     error
	cancel  context.CancelFunc
}

func startPodWatch(ctx context.Context, client *kubernetes.Clientset, o options) (*podWatch, error) {
	ctx, cancel := context.WithCancel(ctx)
	w := &podWatch{phases: map[string]corev1.PodPhase{}, cancel: cancel}
	w.changed = sync.NewCond(&w.mu)
	// The run's namespace is empty before it starts: the list only gives the point to watch from.
	list, err := client.CoreV1().Pods(o.namespace).List(ctx, metav1.ListOptions{
		LabelSelector: fmt.Sprintf("%s=%s", o.label, o.namespace),
	})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("listing pods: %w", err)
	}
	stream, err := openWatch(ctx, client, o, list.ResourceVersion)
	if err != nil {
		cancel()
		return nil, err
	}
	go w.follow(ctx, client, o, stream, list.ResourceVersion)
	return w, nil
}

func openWatch(ctx context.Context, client *kubernetes.Clientset, o options, resourceVersion string) (watch.Interface, error) {
	stream, err := client.CoreV1().Pods(o.namespace).Watch(ctx, metav1.ListOptions{
		LabelSelector:   fmt.Sprintf("%s=%s", o.label, o.namespace),
		ResourceVersion: resourceVersion,
	})
	if err != nil {
		return nil, fmt.Errorf("watching pods: %w", err)
	}
	return stream, nil
}

// follow applies the watch's events; the API server may close a watch at any time, so a watch
// that ends is opened again from the last resource version seen, as a reflector does.
func (w *podWatch) follow(ctx context.Context, client *kubernetes.Clientset, o options, stream watch.Interface, resourceVersion string) {
	for {
		last, err := w.apply(ctx, client, o, stream)
		stream.Stop()
		if err != nil {
			w.finish(err)
			return
		}
		if last != "" {
			resourceVersion = last
		}
		if ctx.Err() != nil {
			w.finish(fmt.Errorf("watch ended: %v", ctx.Err()))
			return
		}
		if stream, err = openWatch(ctx, client, o, resourceVersion); err != nil {
			w.finish(err)
			return
		}
	}
}

// apply handles one watch stream's events until it ends; it returns the last resource version.
func (w *podWatch) apply(ctx context.Context, client *kubernetes.Clientset, o options, stream watch.Interface) (string, error) {
	last := ""
	for event := range stream.ResultChan() {
		pod, ok := event.Object.(*corev1.Pod)
		if !ok {
			return last, fmt.Errorf("watch: unexpected %s event %T", event.Type, event.Object)
		}
		last = pod.ResourceVersion
		w.mu.Lock()
		if event.Type == watch.Deleted {
			delete(w.phases, pod.Name)
		} else {
			w.phases[pod.Name] = pod.Status.Phase
		}
		w.changed.Broadcast()
		w.mu.Unlock()
		terminal := pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
		if event.Type != watch.Deleted && terminal && pod.DeletionTimestamp != nil && len(pod.Finalizers) > 0 {
			go releaseFinalizer(ctx, client, o, pod.Name)
		}
	}
	return last, nil
}

func (w *podWatch) finish(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = err
	}
	w.changed.Broadcast()
}

func (w *podWatch) stop() { w.cancel() }

// waitFor blocks until done(phases) holds or the watch failed.
func (w *podWatch) waitFor(ctx context.Context, done func(map[string]corev1.PodPhase) bool) error {
	stop := context.AfterFunc(ctx, func() { w.finish(ctx.Err()) })
	defer stop()
	w.mu.Lock()
	defer w.mu.Unlock()
	for !done(w.phases) {
		if w.err != nil {
			return w.err
		}
		w.changed.Wait()
	}
	return nil
}

func (w *podWatch) waitRunning(ctx context.Context, n int) error {
	return w.waitFor(ctx, func(phases map[string]corev1.PodPhase) bool {
		running := 0
		for _, phase := range phases {
			if phase == corev1.PodRunning {
				running++
			}
		}
		return running >= n
	})
}

func (w *podWatch) waitGone(ctx context.Context) error {
	return w.waitFor(ctx, func(phases map[string]corev1.PodPhase) bool { return len(phases) == 0 })
}
