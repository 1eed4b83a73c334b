import type { Role } from '@kpm/contracts';
import type { PlannedProcess } from './planned-process';
import { controllerPort, readinessProbe } from './readiness-probe';

const planned = (name: string, role: Role): PlannedProcess => ({
  index: 0,
  uuid: 'u-1',
  spec: { name, uuid: 'u-1', executableAndArguments: [] },
  role,
});
const SETTINGS = {
  connectionServerName: 'local-connection-server',
  connectionServerPort: 5000,
  socketRetryTimeoutSeconds: 2,
};

describe('readinessProbe', () => {
  it('probes the connection server by TCP on its port, every socket_retry_timeout', () => {
    expect(
      readinessProbe(planned('local-connection-server', 'infrastructure-applications'), SETTINGS),
    ).toEqual({
      tcpSocket: { port: 5000 },
      periodSeconds: 2,
      timeoutSeconds: 2,
      successThreshold: 1,
    });
  });

  it.each<[string, Role]>([
    ['root', 'root-controller'],
    ['ru-01', 'application'],
    ['db', 'infrastructure-applications'],
  ])('probes nothing else (%s)', (name, role) => {
    expect(readinessProbe(planned(name, role), SETTINGS)).toBeUndefined();
  });
});

describe('controller readiness probes', () => {
  const controller = (role: Role, args: string[]): PlannedProcess => ({
    index: 0,
    uuid: 'u-2',
    spec: {
      name: 'root',
      uuid: 'u-2',
      executableAndArguments: [{ exec: 'drunc-controller', args }],
    },
    role,
  });
  const timing = { periodSeconds: 2, timeoutSeconds: 2, successThreshold: 1 };

  it.each<[string, 'none' | 'tcp' | 'grpc' | undefined, Role, string[], unknown]>([
    ['off by default', undefined, 'root-controller', ['--port', '3333'], undefined],
    ['none', 'none', 'root-controller', ['--port', '3333'], undefined],
    [
      'tcp on --port',
      'tcp',
      'root-controller',
      ['--port', '3333'],
      { tcpSocket: { port: 3333 }, ...timing },
    ],
    [
      'grpc on -c grpc://',
      'grpc',
      'segment-controller',
      ['-c', 'grpc://localhost:3334'],
      { grpc: { port: 3334 }, ...timing },
    ],
    ['no port on the command line', 'grpc', 'root-controller', ['-c', 'file.json'], undefined],
    ['an application', 'grpc', 'application', ['--port', '3333'], undefined],
  ])('%s', (_, kind, role, args, expected) => {
    expect(
      readinessProbe(controller(role, args), { ...SETTINGS, controllerReadinessProbe: kind }),
    ).toEqual(expected);
  });
});

describe('controllerPort (drunc _extract_port_from_cmd)', () => {
  it.each<[string, string, string[], number | undefined]>([
    ['--port N', 'drunc-controller', ['--port', '3333'], 3333],
    ['--port=N', 'drunc-controller', ['--port=3333'], 3333],
    ['-c grpc://host:N', 'drunc-controller', ['-c', 'grpc://np04-srv-001:3334'], 3334],
    ['-c quoted', 'drunc-controller', ['-c', "'grpc://localhost:3335'"], 3335],
    ['port 0', 'drunc-controller', ['--port', '0'], undefined],
    ['no controller in the command', 'daq_application', ['--port', '3333'], undefined],
    ['no port', 'drunc-controller', ['-c', 'conf.json'], undefined],
  ])('%s', (_, exec, args, port) => {
    expect(
      controllerPort({
        executableAndArguments: [
          { exec: 'source', args: ['env.sh'] },
          { exec, args },
        ],
      }),
    ).toBe(port);
  });
});
