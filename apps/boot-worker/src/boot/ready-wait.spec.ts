import type { Role } from '@kpm/contracts';
import type { PlannedProcess } from './planned-process';
import { isConnectionServer, waitsForReady } from './ready-wait';

const SERVER = 'local-connection-server';

const planned = (name: string, role: Role): PlannedProcess => ({
  index: 0,
  uuid: 'u-1',
  spec: { name, uuid: 'u-1', executableAndArguments: [] },
  role,
});

describe('ready wait', () => {
  it.each<[string, PlannedProcess, boolean, boolean]>([
    ['the local connection server', planned(SERVER, 'infrastructure-applications'), true, true],
    ['the root controller', planned('root', 'root-controller'), false, true],
    ['a segment controller', planned('seg', 'segment-controller'), false, false],
    ['an application', planned('ru-01', 'application'), false, false],
    [
      'another infrastructure application',
      planned('db', 'infrastructure-applications'),
      false,
      false,
    ],
  ])('%s: connection server %s, waits for Ready %s', (_, process, server, waits) => {
    expect(isConnectionServer(process, SERVER)).toBe(server);
    expect(waitsForReady(process, SERVER)).toBe(waits);
  });
});
