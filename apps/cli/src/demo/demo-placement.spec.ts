import { roleOf, type ProcessSpec } from '@kpm/contracts';
import { readSessionFile } from '../session-file/session-file';
import { placeOnRealNode, realNodeOf } from './demo-placement';

const parsed = readSessionFile('examples/demo-session.yaml', {
  session: 'demo',
  defaultUser: 'daq',
});
if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
const { boot } = parsed;

describe('the demo on the real node', () => {
  it('places every process on the real node, in its image, keeping the rest of the spec', () => {
    const target = { node: 'kpm-real-1', image: 'localhost/kpm/daq:0123456789abcdef' };
    const placed = placeOnRealNode(boot, target);
    expect(placed.processes).toHaveLength(boot.processes.length);
    for (const [i, process] of placed.processes.entries()) {
      expect(process.restriction?.allowedHosts).toEqual(['kpm-real-1']);
      expect(process.image).toBe(target.image);
      expect(process.executableAndArguments).toEqual(boot.processes[i].executableAndArguments);
    }
  });

  it.each([
    { env: { KPM_REAL_NODE: 'n', KPM_REAL_IMAGE: 'i' }, target: { node: 'n', image: 'i' } },
    { env: { KPM_REAL_NODE: 'n' }, target: undefined },
    { env: {}, target: undefined },
  ])('finds the real node in the stack environment: $env', ({ env, target }) => {
    expect(realNodeOf(env)).toEqual(target);
  });
});

/** How a process of the demo ends, as kwok plays it from its annotations (docs/design.md §7.2). */
function simulatedEnd(process: ProcessSpec): string {
  const annotations = process.annotations ?? {};
  const code = annotations['sim.kpm.daq/exit-code'];
  if (code !== undefined) return `exits ${code} after ${annotations['sim.kpm.daq/run-ms']} ms`;
  return `stopped with ${annotations['sim.kpm.daq/graceful'] === 'true' ? 0 : 143}`;
}

/** How it ends as the DAQ stand-in runs its flags (stack/images/README.md). */
function standinEnd(process: ProcessSpec): string {
  const args = process.executableAndArguments.at(-1)!.args ?? [];
  const flag = (name: string) => {
    const at = args.indexOf(name);
    return at < 0 ? undefined : args[at + 1];
  };
  const code = flag('--exit');
  if (code !== undefined) return `exits ${code} after ${parseFloat(flag('--after')!) * 1000} ms`;
  // drunc's preStop `kill -QUIT 1` reaches applications before SIGTERM does.
  const byQuit = roleOf(process) === 'application';
  return `stopped with ${(byQuit ? flag('--quit-exit') : flag('--term-exit')) ?? 0}`;
}

describe('the demo session file', () => {
  it.each(boot.processes.map((process) => ({ name: process.name, process })))(
    '$name ends the same on kwok (annotations) and on the real node (stand-in flags)',
    ({ process }) => {
      expect(standinEnd(process)).toBe(simulatedEnd(process));
    },
  );
});
