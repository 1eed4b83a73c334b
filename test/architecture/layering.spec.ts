/**
 * The house's layering, as a test rather than a convention: no circle among kpm's production
 * files; each library imports only the libraries on the floors below it; no library reaches into
 * an app and no app into another. A failure names each file and import that breaks a rule.
 */
import { circles, floors, readImportGraph, roomOf } from './import-graph';

/** The libraries' floors: a library may import those on lower floors only. */
const LIBRARY_FLOORS: Record<string, number> = {
  common: 0,
  contracts: 1,
  tracing: 1,
  config: 2,
  kube: 2,
  kafka: 2,
  client: 3,
  'service-kit': 3,
  stack: 3,
};

const graph = readImportGraph();
const files = [...graph.values()];

it('reads the whole house', () => {
  const rooms = new Set(files.map((f) => f.room));
  expect([...rooms].filter((r) => r.startsWith('libs/')).sort()).toEqual(
    Object.keys(LIBRARY_FLOORS)
      .map((name) => `libs/${name}`)
      .sort(),
  );
  expect([...rooms].filter((r) => r.startsWith('apps/')).sort()).toEqual([
    'apps/boot-worker',
    'apps/cli',
    'apps/drunc-gateway',
    'apps/state',
    'apps/watcher',
  ]);
  expect(files.length).toBeGreaterThan(300);
});

it('has no circle among its files, type imports included', () => {
  const edges = new Map(files.map((f) => [f.path, f.imports]));
  expect(circles(edges)).toEqual([]);
});

it('finds a circle when there is one (the checker itself)', () => {
  const edges = new Map<string, string[]>([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a']],
    ['d', ['d']],
    ['e', ['a']],
  ]);
  expect(circles(edges)).toEqual([['a', 'b', 'c'], ['d']]);
});

it('keeps each library to the floors below it', () => {
  const breaks = files
    .filter((f) => f.room.startsWith('libs/'))
    .flatMap((f) => {
      const floor = LIBRARY_FLOORS[f.room.slice('libs/'.length)];
      return f.libraries
        .filter((lib) => !(LIBRARY_FLOORS[lib] < floor))
        .map(
          (lib) =>
            `${f.path} imports @kpm/${lib} (floor ${LIBRARY_FLOORS[lib]}, not below ${floor})`,
        );
    });
  expect(breaks).toEqual([]);
});

it('keeps each room to itself: no library reaches into an app, no app into another', () => {
  const breaks = files.flatMap((f) =>
    f.imports
      .filter((target) => /^(apps|libs)\//.test(target) && roomOf(target) !== f.room)
      .map((target) => `${f.path} imports ${target}`),
  );
  expect(breaks).toEqual([]);
});

/** Folders whose files must stay within a number of import floors (a flow one can follow). */
const FLOOR_CEILINGS: Array<[folder: string, most: number]> = [
  // The exactly-once core: state-shard → its steps → shard-memory → the rules → the aggregates.
  ['apps/state/src/domain/', 5],
];

it.each(FLOOR_CEILINGS)('keeps %s within %i import floors', (folder, most) => {
  const inside = files.filter((f) => f.path.startsWith(folder));
  expect(inside.length).toBeGreaterThan(0);
  const edges = new Map(inside.map((f) => [f.path, f.imports.filter((i) => i.startsWith(folder))]));
  const floorOf = floors(edges);
  const highest = Math.max(...floorOf.values());
  const top = [...floorOf].filter(([, floor]) => floor === highest).map(([path]) => path);
  // On failure: the files on the highest floor, where the chain ends.
  expect(highest > most ? { highest, top } : {}).toEqual({});
});

it('counts floors as the longest chain of imports (the counter itself)', () => {
  const edges = new Map<string, string[]>([
    ['shard', ['memory', 'rule']],
    ['memory', ['rule']],
    ['rule', ['aggregate']],
    ['aggregate', []],
  ]);
  expect(Object.fromEntries(floors(edges))).toEqual({ aggregate: 1, rule: 2, memory: 3, shard: 4 });
});
