/**
 * The import graph of kpm's production code (apps/\*\/src and libs/\*\/src, without specs,
 * fixtures and the dashboard's browser modules), read from the sources as text: every `from '…'`,
 * `import('…')` and `require('…')`, relative ones resolved to files, `@kpm/<lib>` to that
 * library. What layering.spec.ts holds the house to.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

export const ROOT = resolve(__dirname, '..', '..');

export interface SourceFile {
  /** Relative to the repository, with `/`. */
  path: string;
  /** `apps/<name>` or `libs/<name>`. */
  room: string;
  /** Files of the repository it imports (relative to it, with `/`). */
  imports: string[];
  /** The `@kpm/<lib>` libraries it imports, by name. */
  libraries: string[];
  /** Imports that name only types (`import type …`, `export type … from`). */
  typeOnly: Set<string>;
}

const IMPORT =
  /(?:^|\n)\s*(import|export)\s+(type\s+)?[^'";]*?from\s+['"]([^'"]+)['"]|(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/g;

function productionFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) {
      if (entry === '__fixtures__' || entry === 'static' || entry === 'node_modules') continue;
      out.push(...productionFiles(full));
    } else if (entry.endsWith('.ts') && !entry.endsWith('.spec.ts') && !entry.endsWith('.d.ts')) {
      out.push(full);
    }
  }
  return out;
}

function resolveRelative(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [`${base}.ts`, join(base, 'index.ts'), base]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

const posix = (path: string) => relative(ROOT, path).split(sep).join('/');

function roomOf(path: string): string {
  return path.split('/').slice(0, 2).join('/');
}

/** Every production file of apps/ and libs/ with what it imports. */
export function readImportGraph(): Map<string, SourceFile> {
  const files = new Map<string, SourceFile>();
  for (const top of ['apps', 'libs']) {
    for (const name of readdirSync(join(ROOT, top))) {
      const src = join(ROOT, top, name, 'src');
      if (!existsSync(src)) continue;
      for (const full of productionFiles(src)) {
        const text = readFileSync(full, 'utf8');
        const file: SourceFile = {
          path: posix(full),
          room: `${top}/${name}`,
          imports: [],
          libraries: [],
          typeOnly: new Set(),
        };
        for (const match of text.matchAll(IMPORT)) {
          const specifier = match[3] ?? match[4];
          const typeOnly = Boolean(match[2]);
          if (specifier.startsWith('@kpm/')) {
            file.libraries.push(specifier.slice('@kpm/'.length).split('/')[0]);
          } else if (specifier.startsWith('.')) {
            const target = resolveRelative(full, specifier);
            if (!target) continue;
            const path = posix(target);
            file.imports.push(path);
            if (typeOnly) file.typeOnly.add(path);
          }
        }
        files.set(file.path, file);
      }
    }
  }
  return files;
}

/** The room of a repository path (`apps/state`, `libs/kube`). */
export { roomOf };

/**
 * The circles of the graph: each strongly connected set of two or more files (or a file that
 * imports itself), its members sorted. Tarjan's algorithm, iterative.
 */
export function circles(edges: Map<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (start: string) => {
    const work: Array<{ node: string; children: readonly string[]; at: number }> = [];
    const open = (node: string) => {
      index.set(node, next);
      low.set(node, next);
      next += 1;
      stack.push(node);
      onStack.add(node);
      work.push({ node, children: edges.get(node) ?? [], at: 0 });
    };
    open(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      if (frame.at < frame.children.length) {
        const child = frame.children[frame.at++];
        if (!index.has(child)) open(child);
        else if (onStack.has(child))
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(child)!));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const members: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          members.push(member);
        } while (member !== frame.node);
        const selfLoop = (edges.get(frame.node) ?? []).includes(frame.node);
        if (members.length > 1 || selfLoop) found.push(members.sort());
      }
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

/**
 * The floors of a graph without circles: a file that imports nothing of the set is on floor 1,
 * any other one floor above the highest it imports. Returns each file's floor.
 */
export function floors(edges: Map<string, readonly string[]>): Map<string, number> {
  const floor = new Map<string, number>();
  const of = (node: string, seen: Set<string>): number => {
    const known = floor.get(node);
    if (known !== undefined) return known;
    if (seen.has(node)) return 0; // a circle: circles() reports it
    seen.add(node);
    const below = (edges.get(node) ?? []).filter((n) => edges.has(n)).map((n) => of(n, seen));
    const value = 1 + Math.max(0, ...below);
    floor.set(node, value);
    return value;
  };
  for (const node of edges.keys()) of(node, new Set());
  return floor;
}
