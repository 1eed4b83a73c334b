import type { ProcessInstance } from '@kpm/contracts';
import { StatusCode } from '../wire/drunc-messages';
import { druncInstance } from './process-instance';
import { isEmptyQuery, kpmQuery } from './process-query';

const kpm = (patch: Partial<ProcessInstance> = {}): ProcessInstance => ({
  uuid: 'u-1',
  description: {
    metadata: { user: 'alice', session: 'run-1', name: 'ru-01', treeId: '0.1.1' },
    env: { A: '1' },
    executableAndArguments: [{ exec: 'daq_application', args: ['-n'] }],
    executionDirectory: '/daq/run',
    logFile: '/daq/run/log.txt',
  },
  restriction: { allowedHosts: ['node-1'], dataMount: '/data' },
  statusCode: 'RUNNING',
  namespace: 'run-1',
  podName: 'ru-01',
  podUid: 'p',
  nodeName: 'node-1',
  role: 'application',
  bootedAt: '2026-01-01T00:00:00Z',
  ...patch,
});

describe('druncInstance', () => {
  it("answers process_logs_path with the log file, else kpm's log directory", () => {
    const description = kpm().description;
    const { logFile: _, ...withoutFile } = description;
    const directory = { ...withoutFile, logsPath: '/var/log/daq' };
    expect(druncInstance(kpm()).process_description.process_logs_path).toBe('/daq/run/log.txt');
    expect(
      druncInstance(kpm({ description: directory })).process_description.process_logs_path,
    ).toBe('/var/log/daq');
    expect(
      druncInstance(kpm({ description: withoutFile })).process_description.process_logs_path,
    ).toBe('');
  });

  it('carries the description as booted, the host, the uuid, RUNNING without an exit code', () => {
    expect(druncInstance(kpm())).toEqual({
      process_description: {
        metadata: {
          uuid: { uuid: 'u-1' },
          user: 'alice',
          session: 'run-1',
          name: 'ru-01',
          hostname: 'node-1',
          tree_id: '0.1.1',
        },
        env: { A: '1' },
        executable_and_arguments: [{ exec: 'daq_application', args: ['-n'] }],
        process_execution_directory: '/daq/run',
        process_logs_path: '/daq/run/log.txt',
      },
      process_restriction: {
        allowed_hosts: ['node-1'],
        allowed_host_types: [],
        data_mount: '/data',
      },
      status_code: StatusCode.RUNNING,
      uuid: { uuid: 'u-1' },
    });
  });

  it.each([
    [0, 0],
    [143, 143],
    [-1, -1],
  ])('a DEAD process carries its exit code %i (0 included)', (code, expected) => {
    const out = druncInstance(kpm({ statusCode: 'DEAD', returnCode: code }));
    expect([out.status_code, out.return_code]).toEqual([StatusCode.DEAD, expected]);
  });

  it('a process not yet placed is on its first allowed host', () => {
    expect(druncInstance(kpm({ nodeName: undefined })).process_description.metadata?.hostname).toBe(
      'node-1',
    );
  });
});

describe('kpmQuery', () => {
  it("is drunc's query without its empty selectors", () => {
    expect(
      kpmQuery({ uuids: [{ uuid: 'u' }], names: ['^ru'], user: '', session: 'run-1' }),
    ).toEqual({
      uuids: ['u'],
      names: ['^ru'],
      session: 'run-1',
    });
    expect(isEmptyQuery(kpmQuery({ uuids: [], names: [], user: '', session: '' }))).toBe(true);
    expect(isEmptyQuery(kpmQuery(null))).toBe(true);
  });
});
