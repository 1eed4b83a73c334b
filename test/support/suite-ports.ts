/**
 * The node ports and host ports of each integration suite, so that suites running side by side
 * against one stack (CI runs three at a time) never pick the same one.
 *
 * - A node port is cluster-wide: drunc's NodePort Service of a connection server or a root
 *   controller holds its port in every namespace, and kpm refuses a boot whose port another
 *   Service holds.
 * - A process in the node's network (drunc's `network: host`, kpm's default) listens on the real
 *   node's own ports, which are this machine's: two such processes on one port cannot both run.
 *
 * Each suite has its own block of each, by its place in SUITES (a suite not listed cannot ask,
 * and a name listed twice is refused at load): two different suites never share a port. Node
 * ports come from 31000 up, leaving 30000–30999 to the fixed ports of examples/demo-session.yaml
 * (30333, 30500) and of the gateway's DUNE tree (test/support/python/drunc_gateway: 30005,
 * 30100). Host ports come from 21000 up: below the NodePort range and the kernel's ephemeral
 * ports (32768 and up, where the services and clients of the suites bind), above the stack's own
 * (etcd 12379, API server 16443, Kafka 19092). Within its block a run takes a random lane of
 * `width` ports, so two runs of one suite at once (two people on the shared stack) rarely meet.
 */
const SUITES = [
  'boot-order',
  'boot-worker',
  'connection-server-nodeport',
  'pod-profile',
  'real-node-session',
  'drunc-real-node',
  'kit-real-node',
] as const;
export type PortSuite = (typeof SUITES)[number];

const BLOCK = 100;
const NODE_PORT_BASE = 31_000;
const HOST_PORT_BASE = 21_000;
const NODE_PORT_MAX = 32_767;

if (new Set(SUITES).size !== SUITES.length) throw new Error('a suite is listed twice in SUITES');
if (NODE_PORT_BASE + SUITES.length * BLOCK - 1 > NODE_PORT_MAX)
  throw new Error(`${SUITES.length} suites' blocks of ${BLOCK} leave the NodePort range`);

export interface SuitePorts {
  /** The i-th node port of this run (0 ≤ i < width), in the cluster's NodePort range. */
  node(i: number): number;
  /** The i-th host port of this run (0 ≤ i < width), for processes in the node's network. */
  host(i: number): number;
}

/** This run's ports of `suite`: `width` node ports and `width` host ports, in its own blocks. */
export function suitePorts(suite: PortSuite, width: number): SuitePorts {
  const index = SUITES.indexOf(suite);
  if (index < 0) throw new Error(`suite ${suite} has no ports (test/support/suite-ports.ts)`);
  if (!Number.isInteger(width) || width < 1 || width > BLOCK)
    throw new Error(`width must be a whole number from 1 to ${BLOCK}, not ${width}`);
  const lane = Math.floor(Math.random() * Math.floor(BLOCK / width)) * width;
  const at = (base: number) => (i: number) => {
    if (!Number.isInteger(i) || i < 0 || i >= width)
      throw new Error(`port ${i} of ${suite}: only 0 to ${width - 1} were asked for`);
    return base + index * BLOCK + lane + i;
  };
  return { node: at(NODE_PORT_BASE), host: at(HOST_PORT_BASE) };
}
