import { roleFromTreeId, SHUTDOWN_ORDER, shutdownStages } from './roles';

describe('roleFromTreeId', () => {
  it.each([
    ['0', 'root-controller'],
    ['1', 'infrastructure-applications'],
    ['12', 'infrastructure-applications'],
    ['1.2', 'segment-controller'],
    ['1.2.3', 'application'],
    ['1.2.3.4', 'unknown'],
    [undefined, 'unknown'],
    ['', 'unknown'],
    ['a.b', 'unknown'],
  ])('%s → %s', (treeId, role) => {
    expect(roleFromTreeId(treeId)).toBe(role);
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

  it('is empty for no processes', () => {
    expect(shutdownStages([])).toEqual([]);
  });
});
