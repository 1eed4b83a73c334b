import { instance } from './__fixtures__/facts';
import { cursorOf } from './completion-record';
import { byName } from './process-table';
import { psPage } from './ps-pages';

const names = (n: number) => Array.from({ length: n }, (_, i) => `p-${String(i).padStart(5, '0')}`);
const table = (n: number) =>
  names(n)
    .map((name) => instance(name))
    .sort(byName);

/** Every page of `sorted`, following the cursors as a client does. */
function pages(sorted: ReturnType<typeof table>, limit?: number) {
  const out: ReturnType<typeof psPage>[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = psPage(sorted, cursor, limit);
    out.push(page);
    if (!page.more) return out;
    cursor = cursorOf(page.processes[page.processes.length - 1]);
  }
}

describe('psPage', () => {
  it.each([
    [0, undefined, [0]],
    [999, undefined, [999]],
    [1000, undefined, [1000]],
    [2500, undefined, [1000, 1000, 500]],
    [20_000, 5000, [5000, 5000, 5000, 5000]],
    [7, 3, [3, 3, 1]],
  ])('%i processes with limit %s come in pages of %j', (n, limit, sizes) => {
    const sorted = table(n);
    const all = pages(sorted, limit);
    expect(all.map((p) => p.processes.length)).toEqual(sizes);
    expect(all.flatMap((p) => p.processes)).toEqual(sorted);
  });

  it('starts after the cursor even when that process is gone since', () => {
    const sorted = table(5);
    const cursor = cursorOf(sorted[2]);
    const without = sorted.filter((_, i) => i !== 2);
    expect(psPage(without, cursor).processes).toEqual(sorted.slice(3));
  });

  it('pages through drunc\'s names, "/" and "." included, missing none', () => {
    const sorted = ['dummy_boot_0', 'RU.01', 'a/b', 'a/b/c', 'x'.repeat(253), 'Z_1']
      .map((name) => instance(name))
      .sort(byName);
    const all = pages(sorted, 1);
    expect(all.flatMap((p) => p.processes)).toEqual(sorted);
    expect(all).toHaveLength(sorted.length);
  });
});
