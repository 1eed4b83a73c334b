package main

import (
	"fmt"
	"net"
	"net/http"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// serve listens on port and answers, on the one port, gRPC health checks (HTTP/2 without TLS, as
// the kubelet's grpc probe and drunc's clients speak it) and plain HTTP (200 on any path, for
// httpGet probes). A tcpSocket probe needs only the listening socket. It returns only on failure.
func serve(name string, port int, log func(string, ...any)) error {
	listener, err := net.Listen("tcp", fmt.Sprintf(":%d", port))
	if err != nil {
		return err
	}
	log("listening port=%d", port)
	return serveOn(listener, name)
}

func serveOn(listener net.Listener, name string) error {
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true) // HTTP/2 with prior knowledge: how gRPC clients speak
	server := &http.Server{Handler: handler(name), Protocols: &protocols}
	return server.Serve(listener)
}

func handler(name string) http.Handler {
	grpcServer := grpc.NewServer()
	// A new health server reports SERVING for the empty service name: the kubelet's default.
	healthpb.RegisterHealthServer(grpcServer, health.NewServer())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 && strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc") {
			grpcServer.ServeHTTP(w, r)
			return
		}
		fmt.Fprintf(w, "%s ready\n", name)
	})
}
