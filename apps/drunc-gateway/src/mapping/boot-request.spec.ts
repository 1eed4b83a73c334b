import type { BootRequest } from '../wire/drunc-messages';
import { bootPlan } from './boot-request';
import { bootFieldPath, queryFieldPath } from './field-paths';

const request = (patch: (r: BootRequest) => void = () => undefined): BootRequest => {
  const r: BootRequest = {
    token: { token: 'alice-token', user_name: 'alice' },
    process_description: {
      metadata: {
        user: 'alice',
        session: 'run-1',
        name: 'ru-01',
        hostname: 'np04-srv-1',
        tree_id: '0.1.1',
      },
      env: { DUNEDAQ_SESSION: 'run-1' },
      executable_and_arguments: [
        { exec: 'source', args: ['/rte.sh'] },
        { exec: 'daq_application', args: ['--name', 'ru-01'] },
      ],
      process_execution_directory: '/daq/run',
      process_logs_path: '/daq/run/log_alice_run-1_ru-01.txt',
    },
    process_restriction: {
      allowed_hosts: ['np04-srv-1'],
      allowed_host_types: [],
      data_mount: '/data',
    },
  };
  patch(r);
  return r;
};

describe('bootPlan', () => {
  it('maps a BootRequest field by field onto one ProcessSpec of the session, as the token user', () => {
    expect(bootPlan(request())).toEqual({
      ok: true,
      value: {
        session: 'run-1',
        user: 'alice',
        processes: [
          {
            name: 'ru-01',
            treeId: '0.1.1',
            executableAndArguments: [
              { exec: 'source', args: ['/rte.sh'] },
              { exec: 'daq_application', args: ['--name', 'ru-01'] },
            ],
            env: { DUNEDAQ_SESSION: 'run-1' },
            executionDirectory: '/daq/run',
            logFile: '/daq/run/log_alice_run-1_ru-01.txt',
            restriction: { allowedHosts: ['np04-srv-1'], dataMount: '/data' },
          },
        ],
      },
    });
  });

  it("gives every process the gateway's default image when it has one (drunc names none)", () => {
    const plan = bootPlan(request(), 'kpm-daq:local');
    expect(plan.ok && plan.value.processes[0].image).toBe('kpm-daq:local');
    const without = bootPlan(request());
    expect(without.ok && 'image' in without.value.processes[0]).toBe(false);
  });

  it("keeps drunc's process name as given: the pod's name is kpm's business", () => {
    const plan = bootPlan(request((r) => (r.process_description!.metadata!.name = 'dummy_boot_0')));
    expect(plan.ok && plan.value.processes[0].name).toBe('dummy_boot_0');
  });

  it('leaves out what drunc left empty', () => {
    const plan = bootPlan(
      request((r) => {
        r.process_description!.env = {};
        r.process_description!.process_execution_directory = '';
        r.process_description!.process_logs_path = '';
        delete r.process_description!.metadata!.tree_id;
        r.process_restriction = { allowed_hosts: [], allowed_host_types: [] };
      }),
    );
    expect(plan.ok && Object.keys(plan.value.processes[0]).sort()).toEqual([
      'executableAndArguments',
      'name',
    ]);
  });

  it.each([
    ['no user in the token', (r: BootRequest) => (r.token = null), 'token.user_name'],
    [
      'no session',
      (r: BootRequest) => (r.process_description!.metadata!.session = ''),
      'process_description.metadata.session',
    ],
    [
      'no name',
      (r: BootRequest) => (r.process_description!.metadata!.name = ''),
      'process_description.metadata.name',
    ],
    [
      'another user in the metadata',
      (r: BootRequest) => (r.process_description!.metadata!.user = 'bob'),
      'process_description.metadata.user',
    ],
    [
      'host types kpm has not',
      (r: BootRequest) => (r.process_restriction!.allowed_host_types = ['fpga']),
      'process_restriction.allowed_host_types',
    ],
    ['no description', (r: BootRequest) => (r.process_description = null), 'process_description'],
  ])('refuses %s, naming the field', (_name, patch, field) => {
    const plan = bootPlan(request(patch));
    expect(plan.ok ? [] : plan.violations.map((v) => v.field)).toEqual([field]);
  });
});

describe("bootPlan and drunc's localhost", () => {
  it.each([
    [['localhost'], undefined],
    [['127.0.0.1', 'localhost'], undefined],
    [
      ['localhost', 'node-2'],
      ['localhost', 'node-2'],
    ],
    [['node-1'], ['node-1']],
  ])('allowed_hosts %j → kpm allowedHosts %j', (hosts, expected) => {
    const plan = bootPlan(
      request((r) => (r.process_restriction = { allowed_hosts: hosts, allowed_host_types: [] })),
    );
    expect(plan.ok && plan.value.processes[0].restriction?.allowedHosts).toEqual(expected);
  });
});

describe('field paths', () => {
  it.each([
    ['processes[0].name', 'process_description.metadata.name'],
    ['processes[0].treeId', 'process_description.metadata.tree_id'],
    ['processes[0].restriction.dataMount', 'process_restriction.data_mount'],
    ['processes[0].restriction.allowedHosts[0]', 'process_restriction.allowed_hosts[0]'],
    [
      'processes[0].executableAndArguments[1].exec',
      'process_description.executable_and_arguments[1].exec',
    ],
    ['processes[0].logFile', 'process_description.process_logs_path'],
    ['processes[0].executionDirectory', 'process_description.process_execution_directory'],
    ['processes[0].env.A B', 'process_description.env.A B'],
    ['session', 'process_description.metadata.session'],
    ['user', 'token.user_name'],
  ])('boot %s → %s', (kpm, drunc) => expect(bootFieldPath(kpm)).toBe(drunc));

  it.each([
    ['query.names[2]', 'names[2]'],
    ['query.uuids', 'uuids'],
    ['query.session', 'session'],
    ['query', 'uuids, names, user, session'],
    ['tailLines', 'how_far'],
    ['session', 'session'],
  ])('query %s → %s', (kpm, drunc) => expect(queryFieldPath(kpm)).toBe(drunc));
});
