/**
 * The repository refers to nothing outside itself: its design document is `docs/design.md`, and
 * every `docs/design.md §n` citation in the tracked sources and documents names a section that
 * exists there (docs/design.md keeps its section numbers stable for exactly this).
 *
 * The forbidden texts are assembled from pieces below, so that this file can be scanned too.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const DESIGN_DOC = 'docs/design.md';
const SKIPPED_DIRS = new Set(['node_modules', '.kpm', 'dist', '.git']);

interface Finding {
  at: string;
  why: string;
}

/** What must never appear: a path out of the repository, the old design file, a machine path. */
const FORBIDDEN: readonly { pattern: RegExp; why: string }[] = [
  {
    pattern: new RegExp(['\\.\\.', 'shared'].join('/')),
    why: 'refers to a file outside the repository',
  },
  {
    pattern: new RegExp(`\\b${'DES' + 'IGN'}(?:\\.md\\b|\\s*§|$)`),
    why: `cites a design file outside the repository; cite ${DESIGN_DOC} §n`,
  },
  {
    pattern: new RegExp(`(?<![\\w.~-])/(?:${['wo' + 'rk', 'ro' + 'ot'].join('|')})/`),
    why: 'names an absolute path of one machine',
  },
];

/** The sections `docs/design.md` defines: `## 4. Topics` → 4, `### 6.5 Terminations` → 6.5. */
function sectionsOf(design: string): string[] {
  return [...design.matchAll(/^#{2,3} (\d+(?:\.\d+)?)\.? /gm)].map((m) => m[1]);
}

/**
 * The sections a text cites: every `§n` right after `docs/design.md`, including runs such as
 * `docs/design.md §5.2, §6.5` or `§4–§6`, also across a line break inside a comment.
 */
function citedSections(text: string): { section: string; index: number }[] {
  const cited: { section: string; index: number }[] = [];
  const next = /^(?:\s|\*|#|,|–|-|\/|and\b)*§(\d+(?:\.\d+)*)/;
  for (const match of text.matchAll(/docs\/design\.md/g)) {
    let offset = match.index + match[0].length;
    for (let step = next.exec(text.slice(offset)); step; step = next.exec(text.slice(offset))) {
      cited.push({ section: step[1], index: offset });
      offset += step[0].length;
    }
  }
  return cited;
}

/** Every `§n` inside the design document refers to the document itself. */
function selfReferences(design: string): { section: string; index: number }[] {
  return [...design.matchAll(/§(\d+(?:\.\d+)*)/g)].map((m) => ({ section: m[1], index: m.index }));
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

function findingsIn(path: string, text: string, sections: ReadonlySet<string>): Finding[] {
  const findings: Finding[] = [];
  text.split('\n').forEach((line, i) => {
    for (const { pattern, why } of FORBIDDEN)
      if (pattern.test(line)) findings.push({ at: `${path}:${i + 1}`, why });
  });
  const citations = path === DESIGN_DOC ? selfReferences(text) : citedSections(text);
  for (const { section, index } of citations)
    if (!sections.has(section))
      findings.push({
        at: `${path}:${lineOf(text, index)}`,
        why: `cites ${DESIGN_DOC} §${section}, which does not exist`,
      });
  return findings;
}

/** The repository's files: git's list of tracked and new files, else a walk of the tree. */
function repositoryFiles(): string[] {
  try {
    const listed = execFileSync(
      'git',
      ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
      {
        cwd: ROOT,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    return [...new Set(listed.split('\0'))].filter(
      (path) => path !== '' && !path.split('/').some((part) => SKIPPED_DIRS.has(part)),
    );
  } catch {
    return walk(ROOT);
  }
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIPPED_DIRS.has(name)) return [];
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [relative(ROOT, path)];
  });
}

/** Text files only: a file with a NUL byte is binary. Deleted but still listed files are skipped. */
function readText(path: string): string | undefined {
  const full = join(ROOT, path);
  if (!existsSync(full) || !statSync(full).isFile()) return undefined;
  const bytes = readFileSync(full);
  return bytes.includes(0) ? undefined : bytes.toString('utf8');
}

describe('references in the repository', () => {
  const design = readFileSync(join(ROOT, DESIGN_DOC), 'utf8');
  const sections = new Set(sectionsOf(design));

  it('docs/design.md numbers its sections once each', () => {
    const numbers = sectionsOf(design);
    expect(numbers.length).toBeGreaterThan(10);
    expect(numbers.filter((n, i) => numbers.indexOf(n) !== i)).toEqual([]);
  });

  it('name nothing outside the repository, and only sections docs/design.md has', () => {
    const files = repositoryFiles();
    expect(files).toContain(DESIGN_DOC);
    const findings = files.flatMap((path) => {
      const text = readText(path);
      return text === undefined ? [] : findingsIn(path, text, sections);
    });
    expect(findings).toEqual([]);
  });

  const up = '..';
  const oldDesign = 'DES' + 'IGN';
  const machine = '/wo' + 'rk';
  it.each([
    [`see ${up}/shared/notes.md`, ['refers to a file outside the repository']],
    [
      `rules (${oldDesign} §6)`,
      [`cites a design file outside the repository; cite ${DESIGN_DOC} §n`],
    ],
    [
      `the contract of ${oldDesign}.md §7`,
      [`cites a design file outside the repository; cite ${DESIGN_DOC} §n`],
    ],
    [`KPM_HOME=${machine}/main/.kpm`, ['names an absolute path of one machine']],
    ['rules (docs/design.md §6.5)', []],
    ['rules (docs/design.md §5.2, §6.5) and (docs/design.md §4–§6)', []],
    ['(docs/design.md\n * §1.2)', []],
    // Assembled, so that the scan of this very file does not find them.
    [`(${DESIGN_DOC} §6.9)`, [`cites ${DESIGN_DOC} §6.9, which does not exist`]],
    [`(${DESIGN_DOC} §5.2, §12)`, [`cites ${DESIGN_DOC} §12, which does not exist`]],
    ['(docs/design.md\n * §6.9)', [`cites ${DESIGN_DOC} §6.9, which does not exist`]],
    ['touch /tmp/kpm-pwned; apps/work/x; spec §3.1.1 of CloudEvents', []],
  ])('finds in %j: %j', (text, expected) => {
    expect(findingsIn('example.ts', text, sections).map((f) => f.why)).toEqual(expected);
  });

  it('checks the references inside docs/design.md against itself', () => {
    expect(findingsIn(DESIGN_DOC, 'see §6.5 and §6.9', sections).map((f) => f.why)).toEqual([
      `cites ${DESIGN_DOC} §6.9, which does not exist`,
    ]);
  });
});
