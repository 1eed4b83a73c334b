import type { Role } from '@kpm/contracts';
import type { PlannedProcess } from './planned-process';
import { bootStages, isConnectionServer, waitsForReady } from './boot-order';

const SERVER = 'local-connection-server';

const planned = (name: string, role: Role): PlannedProcess => ({
  index: 0,
  uuid: 'u-1',
  spec: { name, uuid: 'u-1', executableAndArguments: [] },
  role,
});

describe('boot order', () => {
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

  it.each<[string, PlannedProcess, number]>([
    ['the local connection server first', planned(SERVER, 'infrastructure-applications'), 0],
    ['the other infrastructure applications next', planned('db', 'infrastructure-applications'), 1],
    ['the root controller third', planned('root', 'root-controller'), 2],
    ['a segment controller with the rest', planned('seg', 'segment-controller'), -1],
    ['an application with the rest', planned('ru-01', 'application'), -1],
    ['an application named as the server: with the rest', planned(SERVER, 'application'), -1],
  ])("drunc's boot order: %s", (_, process, stage) => {
    expect(bootStages(SERVER).findIndex((s) => s.selects(process))).toBe(stage);
    expect(bootStages(SERVER).filter((s) => s.selects(process)).length).toBeLessThanOrEqual(1);
  });

  it('names what failed for the processes after it; the other infrastructure stops nothing', () => {
    expect(bootStages(SERVER).map((s) => [s.what, s.failureCode])).toEqual([
      ['local connection server', 'ConnectionServerFailed'],
      ['infrastructure application', undefined],
      ['root controller', 'RootControllerFailed'],
    ]);
  });

  it('knows the connection server by name within an infrastructure application, as drunc', () => {
    expect(
      isConnectionServer(planned(`run-7-${SERVER}`, 'infrastructure-applications'), SERVER),
    ).toBe(true);
    expect(isConnectionServer(planned(SERVER, 'application'), SERVER)).toBe(false);
  });
});
