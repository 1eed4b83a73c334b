import type { Role } from '@kpm/contracts';
import {
  connectionServerPort,
  controllerPort,
  isConnectionServer,
  localhostAliases,
  nodePortErrors,
  processNetwork,
  rewriteGrpcHosts,
  type NetworkProcess,
  type NetworkSettings,
} from './process-network';

const SETTINGS: NetworkSettings = {
  connectionServerName: 'local-connection-server',
  connectionServerPort: 5000,
  network: 'host',
  nodePorts: true,
  nodePortRange: { min: 30000, max: 32767 },
};
const rte = { exec: 'source', args: ['/cvmfs/daq/daq_app_rte.sh'] };
const process = (
  name: string,
  role: Role,
  exec: string,
  args: string[],
  env?: Record<string, string>,
): NetworkProcess => ({
  spec: { name, executableAndArguments: [rte, { exec, args }], ...(env ? { env } : {}) },
  role,
});
const drunc = (name: string, c: string) => ['-s', 'run-7', '-k', 'conf', '-n', name, '-c', c];

const server = process(
  'local-connection-server',
  'infrastructure-applications',
  'gunicorn',
  ['-b', '0.0.0.0:${CONNECTION_PORT}', '--workers=1', 'connection-service.connection-flask:app'],
  { CONNECTION_PORT: '30500' },
);
const root = process(
  'root-controller',
  'root-controller',
  'drunc-controller',
  drunc('root-controller', 'grpc://np04-srv-001:30333'),
);
const segment = process(
  'ru-controller',
  'segment-controller',
  'drunc-controller',
  drunc('ru-controller', 'grpc://np04-srv-002:3334'),
);
const app = process('ru-01', 'application', 'daq_application', drunc('ru-01', 'rest://h:3335'));
const infra = process('opmon-gateway', 'infrastructure-applications', 'opmon', []);

describe('processNetwork: drunc’s networking, shape by shape', () => {
  it.each<[string, NetworkProcess, unknown]>([
    [
      'the connection server: NodePort on its bind port, pod network, its http port',
      server,
      {
        hostNetwork: false,
        service: { type: 'NodePort', port: 30500, nodePort: 30500 },
        podIp: false,
        containerPort: { name: 'http-port', port: 30500 },
        localhostAlias: false,
      },
    ],
    [
      'the root controller: NodePort on its -c port, pod network, POD_IP',
      root,
      {
        hostNetwork: false,
        service: { type: 'NodePort', port: 30333, nodePort: 30333 },
        podIp: true,
        localhostAlias: true,
      },
    ],
    [
      'a segment controller: the node’s network, headless',
      segment,
      { hostNetwork: true, service: { type: 'headless' }, podIp: false, localhostAlias: true },
    ],
    [
      'an application: the node’s network, headless',
      app,
      { hostNetwork: true, service: { type: 'headless' }, podIp: false, localhostAlias: true },
    ],
    [
      'another infrastructure application: the node’s network, headless',
      infra,
      { hostNetwork: true, service: { type: 'headless' }, podIp: false, localhostAlias: true },
    ],
    [
      'a root controller without a port: headless in the node’s network, as drunc falls back',
      process('root-controller', 'root-controller', 'drunc-controller', ['-n', 'root']),
      { hostNetwork: true, service: { type: 'headless' }, podIp: false, localhostAlias: true },
    ],
  ])('%s', (_, p, expected) => {
    expect(processNetwork(p, SETTINGS)).toEqual(expected);
  });

  it('keeps every pod in the pod network with network: pod', () => {
    const pod = { ...SETTINGS, network: 'pod' as const };
    expect([server, root, segment, app].map((p) => processNetwork(p, pod).hostNetwork)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });

  it('makes no NodePort with nodePorts: false (the root keeps no POD_IP rewrite then)', () => {
    const none = { ...SETTINGS, nodePorts: false };
    expect(processNetwork(root, none)).toMatchObject({
      hostNetwork: true,
      service: { type: 'headless' },
      podIp: false,
    });
  });

  it('takes the configured node port of the connection server when one is set', () => {
    const fixed = { ...SETTINGS, connectionServerNodePort: 31000 };
    expect(processNetwork(server, fixed).service).toEqual({
      type: 'NodePort',
      port: 30500,
      nodePort: 31000,
    });
  });
});

describe('isConnectionServer: drunc’s test, infrastructure named after it', () => {
  it.each<[string, Role, boolean]>([
    ['local-connection-server', 'infrastructure-applications', true],
    ['run-7-local-connection-server', 'infrastructure-applications', true],
    ['local-connection-server', 'application', false],
    ['connection-server', 'infrastructure-applications', false],
  ])('%s as %s → %p', (name, role, is) => {
    expect(isConnectionServer(process(name, role, 'gunicorn', []), 'local-connection-server')).toBe(
      is,
    );
  });
});

describe('connectionServerPort: gunicorn’s bind, as drunc reads it', () => {
  const gunicorn = (args: string[], env?: Record<string, string>) => ({
    executableAndArguments: [rte, { exec: 'gunicorn', args }],
    ...(env ? { env } : {}),
  });
  it.each<[string, ReturnType<typeof gunicorn>, number]>([
    ['-b host:N', gunicorn(['-b', '0.0.0.0:30123', 'app']), 30123],
    ['--bind=host:N', gunicorn(['--bind=0.0.0.0:30124', 'app']), 30124],
    [
      '--bind host:${VAR} from the env',
      gunicorn(['--bind', '0.0.0.0:${CONNECTION_PORT}'], { CONNECTION_PORT: '30125' }),
      30125,
    ],
    ['${VAR} missing from the env: the fallback', gunicorn(['-b', '0.0.0.0:${NOPE}']), 5000],
    ['${VAR} not a number: the fallback', gunicorn(['-b', 'h:${P}'], { P: 'x' }), 5000],
    ['port 0: the fallback', gunicorn(['-b', '0.0.0.0:0']), 5000],
    ['no bind: the fallback', gunicorn(['app']), 5000],
  ])('%s', (_, spec, port) => {
    expect(connectionServerPort(spec, 5000)).toBe(port);
  });

  it('reads nothing from a command that is not gunicorn', () => {
    const spec = { executableAndArguments: [{ exec: 'server', args: ['-b', '0.0.0.0:30123'] }] };
    expect(connectionServerPort(spec, 5000)).toBe(5000);
  });
});

describe('controllerPort: drunc’s --port N, else -c grpc://host:N', () => {
  const controller = (exec: string, args: string[]) => ({
    executableAndArguments: [{ exec, args }],
  });
  it.each<[string, ReturnType<typeof controller>, number | undefined]>([
    ['--port N', controller('drunc-controller', ['--port', '3333']), 3333],
    ['--port=N', controller('drunc-controller', ['--port=3334']), 3334],
    ['-c grpc://host:N', controller('drunc-controller', ['-c', 'grpc://h:3335']), 3335],
    ['-c "grpc://host:N"', controller('drunc-controller', ['-c', '"grpc://h:3336"']), 3336],
    ['-c rest://…: not gRPC', controller('drunc-controller', ['-c', 'rest://h:3337']), undefined],
    ['port 0', controller('drunc-controller', ['--port', '0']), undefined],
    ['not a controller', controller('daq_application', ['--port', '3338']), undefined],
  ])('%s', (_, spec, port) => {
    expect(controllerPort(spec)).toBe(port);
  });
});

describe('nodePortErrors: drunc exposes the port as the same node port', () => {
  it('refuses a root controller port outside the NodePort range, naming range and setting', () => {
    const low = process('root-controller', 'root-controller', 'drunc-controller', [
      '-c',
      'grpc://h:3333',
    ]);
    expect(nodePortErrors('processes[1]', low, SETTINGS)).toEqual([
      {
        path: 'processes[1].executableAndArguments',
        message:
          "the root controller listens on 3333, which drunc exposes as the same node port, outside the cluster's NodePort range 30000-32767 (podManagement.nodePortRange); give it a port in the range, or set podManagement.nodePorts to false",
      },
    ]);
  });

  it('accepts ports in the range, headless processes, and any port with nodePorts off', () => {
    expect(nodePortErrors('p', root, SETTINGS)).toEqual([]);
    expect(nodePortErrors('p', server, SETTINGS)).toEqual([]);
    expect(nodePortErrors('p', segment, SETTINGS)).toEqual([]);
    const low = process('root-controller', 'root-controller', 'drunc-controller', ['--port', '1']);
    expect(nodePortErrors('p', low, { ...SETTINGS, nodePorts: false })).toEqual([]);
  });
});

describe('rewriteGrpcHosts: the root controller registers its pod’s address', () => {
  it('rewrites every grpc://host:port of every argument to ${POD_IP}, nothing else', () => {
    expect(
      rewriteGrpcHosts([
        rte,
        {
          exec: 'drunc-controller',
          args: [
            '-c',
            'grpc://np04-srv-001:30333',
            '-x',
            'a=grpc://h1:1,grpc://h2:2',
            'rest://h:3',
          ],
        },
      ]),
    ).toEqual([
      rte,
      {
        exec: 'drunc-controller',
        args: [
          '-c',
          'grpc://${POD_IP}:30333',
          '-x',
          'a=grpc://${POD_IP}:1,grpc://${POD_IP}:2',
          'rest://h:3',
        ],
      },
    ]);
  });
});

describe('localhostAliases', () => {
  it('maps localhost to the connection server in every other pod, once its address is known', () => {
    expect(localhostAliases({ localhostAlias: true }, '10.96.0.12')).toEqual([
      { ip: '10.96.0.12', hostnames: ['localhost'] },
    ]);
    expect(localhostAliases({ localhostAlias: false }, '10.96.0.12')).toBeUndefined();
    expect(localhostAliases({ localhostAlias: true }, undefined)).toBeUndefined();
  });
});
