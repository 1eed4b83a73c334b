import type { Role } from '@kpm/contracts';
import type { PlannedProcess } from './planned-process';
import { readinessProbe } from './readiness-probe';

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
