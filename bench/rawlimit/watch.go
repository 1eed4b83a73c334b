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
	stream, err := client.CoreV1().Pods(o.namespace).Watch(ctx, metav1.ListOptions{
		LabelSelector: fmt.Sprintf("%s=%s", o.label, o.namespace),
	})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("watching pods: %w", err)
	}
	go w.follow(ctx, client, o, stream)
	return w, nil
}

func (w *podWatch) follow(ctx context.Context, client *kubernetes.Clientset, o options, stream watch.Interface) {
	defer stream.Stop()
	for event := range stream.ResultChan() {
		pod, ok := event.Object.(*corev1.Pod)
		if !ok {
			w.finish(fmt.Errorf("watch: unexpected %s event %T", event.Type, event.Object))
			return
		}
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
	w.finish(fmt.Errorf("watch ended: %v", ctx.Err()))
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
