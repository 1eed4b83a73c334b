import { roleOf, runsController, SHUTDOWN_ORDER, shutdownStages, treeDepth } from './roles';

const run = (...execs: string[]) => execs.map((exec) => ({ exec }));
const rte = { exec: 'source' };

describe('roleOf: drunc’s rule, tree id and executable', () => {
  // drunc's own table (its compute_role_from_tree_id test), then the shapes its driver sends.
  it.each([
    ['0', true, 'root-controller'],
    ['0', false, 'infrastructure-applications'],
    ['0.1', true, 'segment-controller'],
    ['0.1.2', true, 'segment-controller'],
    ['0.1.2.3', true, 'segment-controller'],
    ['0.1', false, 'application'],
    ['0.1.2', false, 'application'],
    ['0.1.2.3', false, 'application'],
    ['0.2.3.4', false, 'application'],
    ['1', false, 'infrastructure-applications'],
    ['1', true, 'infrastructure-applications'],
    ['2.3', false, 'infrastructure-applications'],
    ['2.3', true, 'infrastructure-applications'],
    ['', false, 'unknown'],
    ['', true, 'unknown'],
    [undefined, true, 'unknown'],
    ['a.b', true, 'unknown'],
  ])('tree id %p, controller %p → %s', (treeId, controller, role) => {
    const executableAndArguments = controller
      ? [rte, { exec: 'drunc-controller' }]
      : [rte, { exec: 'daq_application' }];
    expect(roleOf({ treeId, executableAndArguments })).toBe(role);
  });

  it('tells the root segment’s applications (0.N) from the sub-segments’ controllers (0.N)', () => {
    const segment = roleOf({ treeId: '0.0', executableAndArguments: run('drunc-controller') });
    const app = roleOf({ treeId: '0.0', executableAndArguments: run('daq_application') });
    expect([segment, app]).toEqual(['segment-controller', 'application']);
  });

  it('numbers infrastructure applications 1, 2, … (the connection server is one of them)', () => {
    expect(roleOf({ treeId: '1', executableAndArguments: run('gunicorn') })).toBe(
      'infrastructure-applications',
    );
    expect(roleOf({ treeId: '2', executableAndArguments: run('daq_application') })).toBe(
      'infrastructure-applications',
    );
  });

  it('knows a controller by name or path, in any command, and by the executables given', () => {
    expect(runsController({ executableAndArguments: run('/opt/daq/bin/drunc-controller') })).toBe(
      true,
    );
    expect(runsController({ executableAndArguments: run('source', 'drunc-controller') })).toBe(
      true,
    );
    expect(runsController({ executableAndArguments: run('drunc-controller-shell') })).toBe(false);
    expect(runsController({ executableAndArguments: run('controller') })).toBe(false);
    expect(runsController({ executableAndArguments: run('rc') }, ['rc'])).toBe(true);
    expect(runsController({})).toBe(false);
  });
});

describe('shutdownStages', () => {
  it('orders stages as drunc does and omits empty ones', () => {
    expect(SHUTDOWN_ORDER).toEqual([
      'unknown',
      'application',
      'segment-controller',
      'root-controller',
      'infrastructure-applications',
    ]);
    const stages = shutdownStages([
      { uuid: 'infra', role: 'infrastructure-applications' },
      { uuid: 'root', role: 'root-controller' },
      { uuid: 'app1', role: 'application' },
      { uuid: 'x', role: 'unknown' },
      { uuid: 'app2', role: 'application' },
    ]);
    expect(stages).toEqual([['x'], ['app1', 'app2'], ['root'], ['infra']]);
  });

  it('kills segment controllers one depth at a time, deepest first', () => {
    const stages = shutdownStages([
      { uuid: 'seg-a', role: 'segment-controller', treeId: '0.0' },
      { uuid: 'seg-a1', role: 'segment-controller', treeId: '0.0.0' },
      { uuid: 'app', role: 'application', treeId: '0.0.0.1' },
      { uuid: 'seg-b', role: 'segment-controller', treeId: '0.1' },
      { uuid: 'seg-a1x', role: 'segment-controller', treeId: '0.0.0.0' },
      { uuid: 'seg-b1', role: 'segment-controller', treeId: '0.1.0' },
      { uuid: 'root', role: 'root-controller', treeId: '0' },
    ]);
    expect(stages).toEqual([
      ['app'],
      ['seg-a1x'],
      ['seg-a1', 'seg-b1'],
      ['seg-a', 'seg-b'],
      ['root'],
    ]);
  });

  it('counts a segment controller without a tree id at depth 0, after the deeper ones', () => {
    expect(
      shutdownStages([
        { uuid: 'bare', role: 'segment-controller' },
        { uuid: 'deep', role: 'segment-controller', treeId: '0.1' },
      ]),
    ).toEqual([['deep'], ['bare']]);
    expect(treeDepth(undefined)).toBe(0);
    expect(treeDepth('0.1.2')).toBe(2);
  });

  it('is empty for no processes', () => {
    expect(shutdownStages([])).toEqual([]);
  });
});
