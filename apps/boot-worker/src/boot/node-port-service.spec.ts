import type { Role } from '@kpm/contracts';
import { nodePortCollision, nodePortRefusals } from './node-port-service';
import type { NetworkSettings } from './process-network';

const SETTINGS: NetworkSettings = {
  connectionServerName: 'local-connection-server',
  connectionServerPort: 5000,
  network: 'host',
  nodePorts: true,
  nodePortRange: { min: 30000, max: 32767 },
};
const process = (index: number, name: string, role: Role, exec: string, args: string[]) => ({
  index,
  role,
  spec: { name, executableAndArguments: [{ exec, args }] },
});
const server = process(0, 'local-connection-server', 'infrastructure-applications', 'gunicorn', [
  '-b',
  '0.0.0.0:30500',
]);
const root = process(1, 'root', 'root-controller', 'drunc-controller', ['-c', 'grpc://h:30333']);
const app = process(2, 'ru-01', 'application', 'daq_application', ['-c', 'rest://h:3335']);

describe('nodePortCollision', () => {
  it.each<[string, string | undefined, boolean]>([
    ['nobody holds the port', undefined, false],
    ["this session's own Service (a redelivered boot)", 'run-7/local-connection-server', false],
    ['another session', 'run-8/local-connection-server', true],
    ['someone else in this session', 'run-7/grafana', true],
  ])('collision when %s: %s', (_, holder, refused) => {
    const errors = nodePortCollision(
      'processes[0]',
      'run-7',
      'local-connection-server',
      30500,
      holder,
    );
    expect(errors.length > 0).toBe(refused);
    if (refused)
      expect(errors).toEqual([
        {
          path: 'processes[0]',
          message: `node port 30500 is held by Service ${holder}; free it or choose another port`,
        },
      ]);
  });
});

describe('nodePortRefusals: the connection server’s and the root controller’s node ports', () => {
  it('asks for the node port of each NodePort process only, and refuses a held one', async () => {
    const asked: number[] = [];
    const holders: Record<number, string> = { 30333: 'run-8/root' };
    const errors = await nodePortRefusals('run-7', [server, root, app], SETTINGS, (port) => {
      asked.push(port);
      return Promise.resolve(holders[port]);
    });
    expect(asked).toEqual([30500, 30333]);
    expect(errors.map((e) => e.path)).toEqual(['processes[1]']);
  });

  it('refuses a port outside the range without asking who holds it', async () => {
    const low = process(1, 'root', 'root-controller', 'drunc-controller', ['--port', '3333']);
    const asked: number[] = [];
    const errors = await nodePortRefusals('run-7', [low], SETTINGS, (port) => {
      asked.push(port);
      return Promise.resolve(undefined);
    });
    expect(asked).toEqual([]);
    expect(errors).toEqual([
      { path: 'processes[1].executableAndArguments', message: expect.stringContaining('3333') },
    ]);
  });
});
