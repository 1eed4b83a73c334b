import { MAX_RECORD_BYTES, type CommandCompleted, type ProcessInstance } from '@kpm/contracts';
import { instance } from './__fixtures__/facts';
import { sizedCompletion } from './completion-record';
import { cursorOf } from './completion-record';

const base: Omit<CommandCompleted, 'processes'> = {
  commandId: 'c-1',
  commandType: 'daq.kpm.command.boot.v1',
  session: 'run-42',
  status: 'succeeded',
  completedAt: '2026-01-01T00:00:00.000Z',
  durationMs: 1,
};

/** A process whose spec weighs about `bytes`: the largest a boot of 5000 can carry is ~1.6 KiB. */
function heavy(i: number, bytes: number): ProcessInstance {
  const p = instance(`p-${String(i).padStart(5, '0')}`);
  return { ...p, description: { ...p.description, env: { PAD: 'x'.repeat(bytes) } } };
}
const processes = (n: number, bytes: number) =>
  Array.from({ length: n }, (_, i) => heavy(i, bytes));
const size = (c: CommandCompleted) => Buffer.byteLength(JSON.stringify(c));

describe('sizedCompletion', () => {
  it.each([
    ['a boot of 5000 processes of 1.6 KiB each', 5000, 1600],
    ['a kill of 5000 processes of 4 KiB each', 5000, 4096],
    ['a flush of 20,000 processes', 20_000, 600],
  ])('keeps %s under the topic limit and counts what it left out', (_, n, bytes) => {
    const all = processes(n, bytes);
    const sized = sizedCompletion(base, all, undefined);
    expect(size(sized)).toBeLessThan(MAX_RECORD_BYTES - 64 * 1024);
    expect(sized.processes.length + (sized.processesOmitted ?? 0)).toBe(n);
    expect(sized.nextCursor).toBeUndefined();
  });

  it('lists everything without a count when it fits', () => {
    const sized = sizedCompletion(base, processes(10, 100), undefined);
    expect(sized.processes).toHaveLength(10);
    expect(sized).not.toHaveProperty('processesOmitted');
  });

  it.each([
    ['a page that fits, with more after it', 1000, 100, true, 1000],
    ['the last page', 10, 100, false, 10],
    ['a page too heavy for one record', 1000, 16 * 1024, false, undefined],
  ])('ends %s with the right cursor', (_, n, bytes, more, listed) => {
    const all = processes(n, bytes);
    const sized = sizedCompletion(base, all, { more });
    expect(size(sized)).toBeLessThan(MAX_RECORD_BYTES - 64 * 1024);
    if (listed !== undefined) expect(sized.processes).toHaveLength(listed);
    const last = sized.processes[sized.processes.length - 1];
    const expectsCursor = more || sized.processes.length < n;
    expect(sized.nextCursor).toBe(expectsCursor ? cursorOf(last) : undefined);
    expect(sized).not.toHaveProperty('processesOmitted');
  });

  it('lists at least one process, so paging always advances', () => {
    const sized = sizedCompletion(base, processes(2, 1000), { more: false }, 100);
    expect(sized.processes).toHaveLength(1);
    expect(sized.nextCursor).toBe(cursorOf(sized.processes[0]));
  });
});
