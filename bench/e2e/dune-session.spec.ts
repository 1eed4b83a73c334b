import { duneProcesses, midSessionReadout, readoutCount } from './dune-session';

const hostsOf = (count: number) =>
  Array.from({ length: count }, (_, i) => `dune-${String(i + 1).padStart(3, '0')}`);

describe('duneProcesses', () => {
  it.each([
    // n, hosts, readouts, dataflow applications, hosts used
    [17, 1, 2, 6, 1],
    [200, 110, 150, 41, 110],
    [400, 140, 300, 91, 140],
  ])(
    '%i processes over %i hosts: %i readout, %i dataflow, on %i hosts',
    (n, hosts, ru, df, used) => {
      const processes = duneProcesses(n, hostsOf(hosts));
      expect(processes).toHaveLength(n);
      expect(new Set(processes.map((p) => p.name)).size).toBe(n);
      expect(processes.filter((p) => /^ru-\d/.test(p.name))).toHaveLength(ru);
      expect(processes.filter((p) => /^df-\d/.test(p.name))).toHaveLength(df);
      expect(new Set(processes.map((p) => p.restriction.allowedHosts[0])).size).toBe(used);
      expect(readoutCount(n)).toBe(ru);
    },
  );

  it('boots in drunc order: the connection server, the root controller, the segments, then the applications', () => {
    const [first, second, ...rest] = duneProcesses(17, hostsOf(1));
    expect([first.treeId, second.treeId]).toEqual(['1', '0']);
    expect(rest.slice(0, 4).map((p) => p.treeId)).toEqual(['0.1', '0.2', '0.3', '0.4']);
  });

  it('puts two readout applications on a host, as DUNE readout servers run them', () => {
    const readouts = duneProcesses(200, hostsOf(110)).filter((p) => /^ru-\d/.test(p.name));
    const perHost = new Map<string, number>();
    for (const p of readouts) {
      const host = p.restriction.allowedHosts[0];
      perHost.set(host, (perHost.get(host) ?? 0) + 1);
    }
    expect(Math.max(...perHost.values())).toBe(2);
    expect(midSessionReadout(200)).toBe('ru-075');
  });

  it('refuses a session too small for its fixed part, or without hosts', () => {
    expect(() => duneProcesses(11, hostsOf(1))).toThrow('at least 12 processes, not 11');
    expect(() => duneProcesses(17, [])).toThrow('at least one host');
  });
});
