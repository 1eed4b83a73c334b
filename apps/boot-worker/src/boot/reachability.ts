/**
 * drunc connects to the connection server (HTTP) and the root controller (TCP) itself, through
 * their node port, once their pod is Ready and before it boots anything else
 * (`_wait_for_nodeport_http_ready`, `_wait_for_nodeport_tcp_ready`). `reachabilityCheck` says
 * where kpm connects: `node-port` as drunc (the node's address, the node port), `pod-ip` (the
 * pod's address and port: routes where node ports do not, e.g. without kube-proxy), or `none`.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import type { V1Pod } from '@kubernetes/client-node';
import type { ProcessNetwork } from './process-network';

/** The network as the boot-worker reaches it: a port answers, or not. */
export interface Reachability {
  /** A TCP connection to host:port is accepted within `timeoutMs`. */
  tcp(host: string, port: number, timeoutMs: number): Promise<boolean>;
  /** An HTTP GET of the URL answers 2xx or 3xx within `timeoutMs` (drunc's `urlopen`). */
  http(url: string, timeoutMs: number): Promise<boolean>;
}

/** Where to connect to `pod`, and how; undefined: nothing to check. */
export interface ReachTarget {
  protocol: 'tcp' | 'http';
  host: string;
  port: number;
}

export function reachTarget(
  pod: V1Pod,
  network: Pick<ProcessNetwork, 'service' | 'containerPort' | 'podIp'>,
  check: 'node-port' | 'pod-ip' | 'none',
): ReachTarget | undefined {
  const { service } = network;
  if (check === 'none' || service.type !== 'NodePort') return undefined;
  // The connection server answers HTTP (gunicorn); the root controller's gRPC is checked by TCP.
  const protocol = network.containerPort ? 'http' : 'tcp';
  const host = check === 'node-port' ? pod.status?.hostIP : pod.status?.podIP;
  if (!host) return undefined;
  return { protocol, host, port: check === 'node-port' ? service.nodePort : service.port };
}

/** The machine's own sockets. */
export const socketReachability: Reachability = {
  tcp: (host, port, timeoutMs) =>
    new Promise((resolve) => {
      const socket = connect({ host, port, timeout: timeoutMs });
      const done = (ok: boolean) => {
        socket.destroy();
        resolve(ok);
      };
      socket.once('connect', () => done(true));
      socket.once('timeout', () => done(false));
      socket.once('error', () => done(false));
    }),
  http: (url, timeoutMs) =>
    new Promise((resolve) => {
      const req = request(url, { method: 'GET', timeout: timeoutMs }, (res) => {
        res.resume();
        const status = res.statusCode ?? 0;
        resolve(status >= 200 && status < 400);
      });
      req.once('timeout', () => req.destroy());
      req.once('error', () => resolve(false));
      req.end();
    }),
};
