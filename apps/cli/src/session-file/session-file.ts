/**
 * The session file: a process tree in YAML, like drunc's boot configuration — a session, its
 * user, optional `defaults` every process inherits, and the processes with their tree ids.
 *
 * Every value is text, as written: `treeId: 1.10` is "1.10" and `PORT: 8080` is "8080", never a
 * number YAML rounded. The boot command is checked with the contract classes, and every problem
 * names its line, column and field, so the author knows what to fix where.
 */
import { readFileSync } from 'node:fs';
import { isMap, isPair, isScalar, LineCounter, parseDocument, visit, type Document } from 'yaml';
import { validateFrozen, BootCommand, type FieldError } from '@kpm/contracts';
import type { Boot } from '@kpm/client';
import { pathSegments, YamlLocator, type Location } from './yaml-locator';

export interface SessionFileProblem extends Partial<Location> {
  /** The field, as the boot command names it (`processes[1].name`), or `(yaml)` for syntax. */
  path: string;
  message: string;
}

type SessionFileResult = { ok: true; boot: Boot } | { ok: false; problems: SessionFileProblem[] };

/** What the command line may set over the file. */
interface SessionOverrides {
  session?: string;
  user?: string;
  /** Used when neither the file nor `user` names one (the invoking user). */
  defaultUser?: string;
  /** `--all-or-nothing`: the whole boot or nothing, whatever the file says. */
  allOrNothing?: boolean;
}

const TOP_LEVEL = ['session', 'user', 'allOrNothing', 'exitPolicy', 'defaults', 'processes'];
/** What `defaults` may set: everything of a process except its identity. */
const DEFAULTABLE = [
  'image',
  'executableAndArguments',
  'env',
  'secretEnv',
  'envFrom',
  'executionDirectory',
  'logsPath',
  'logFile',
  'restriction',
  'labels',
  'annotations',
  'resources',
  'uid', // run the session as one user (docs/design.md §6.3)
  'gid',
  'exitPolicy',
];
/** Fields whose maps merge (the process's entries win) instead of being replaced. */
const MERGED_MAPS = new Set(['env', 'labels', 'annotations', 'restriction', 'resources']);

export function parseSessionFile(
  text: string,
  overrides: SessionOverrides = {},
): SessionFileResult {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, merge: true });
  const locator = new YamlLocator(document, lines);
  if (document.errors.length > 0) {
    return {
      ok: false,
      problems: document.errors.map((e) => ({
        ...locator.at(e.pos[0]),
        path: '(yaml)',
        message: e.message,
      })),
    };
  }
  const shape = shapeProblems(document, locator);
  if (shape.length > 0) return { ok: false, problems: shape };
  asWrittenText(document);
  const file = (document.toJS() ?? {}) as Record<string, unknown>;
  const boot = {
    session: overrides.session ?? file.session,
    user: overrides.user ?? file.user ?? overrides.defaultUser,
    processes: withDefaults(file.processes, file.defaults),
    ...(overrides.allOrNothing || file.allOrNothing !== undefined
      ? { allOrNothing: overrides.allOrNothing || file.allOrNothing }
      : {}),
    ...(file.exitPolicy !== undefined ? { exitPolicy: file.exitPolicy } : {}),
  };
  if (boot.session === undefined || boot.session === null) {
    const message = 'is required: name the session in the file or with --session';
    return { ok: false, problems: [{ line: 1, column: 1, path: 'session', message }] };
  }
  const checked = validateFrozen(BootCommand, boot);
  if (checked.ok) return { ok: true, boot: checked.value };
  return { ok: false, problems: checked.errors.map((e) => locate(e, locator, overrides)) };
}

/** Reads and parses `file`; I/O errors become a problem without a line. */
export function readSessionFile(file: string, overrides: SessionOverrides = {}): SessionFileResult {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { ok: false, problems: [{ path: '(file)', message: (error as Error).message }] };
  }
  return parseSessionFile(text, overrides);
}

/** `demo.yaml:12:7: processes[1].name: must be a process name of 1 to 253 characters …` */
export function formatProblem(file: string, problem: SessionFileProblem): string {
  const where = problem.line === undefined ? file : `${file}:${problem.line}:${problem.column}`;
  return `${where}: ${problem.path}: ${problem.message}`;
}

/** The file is a mapping of known keys, `defaults` a mapping of defaultable fields. */
function shapeProblems(document: Document, locator: YamlLocator): SessionFileProblem[] {
  const root = document.contents;
  if (!isMap(root)) {
    const message = `the file must be a mapping with ${TOP_LEVEL.join(', ')}`;
    return [{ ...locator.at(root?.range?.[0] ?? 0), path: '(file)', message }];
  }
  const problems = unknownKeys(root.items, TOP_LEVEL, '', locator);
  const defaults = root.get('defaults', true);
  if (defaults !== undefined && !isMap(defaults)) {
    const at = locator.locate(['defaults']).location;
    problems.push({ ...at, path: 'defaults', message: 'must be a mapping of process fields' });
  } else if (isMap(defaults)) {
    problems.push(...unknownKeys(defaults.items, DEFAULTABLE, 'defaults.', locator));
  }
  return problems;
}

function unknownKeys(
  items: readonly unknown[],
  known: readonly string[],
  prefix: string,
  locator: YamlLocator,
): SessionFileProblem[] {
  return items.flatMap((pair) => {
    if (!isPair(pair) || !isScalar(pair.key)) return [];
    const key = String(pair.key.value);
    if (known.includes(key)) return [];
    const message = `is not a known field (expected one of ${known.join(', ')})`;
    return [{ ...locator.at(pair.key.range?.[0] ?? 0), path: `${prefix}${key}`, message }];
  });
}

/** Fields whose values keep their YAML type: numbers, and the boot's one switch. */
const TYPED_FIELDS = new Set(['uid', 'gid', 'allOrNothing']);
/** Fields whose every value inside keeps its YAML type (exit codes, budgets, seconds). */
const TYPED_TREES = new Set(['exitPolicy']);

/**
 * Numbers and booleans become the text the author wrote (`1.10` stays "1.10"), but for a typed
 * field's value.
 */
function asWrittenText(document: Document): void {
  visit(document, {
    Scalar(key, node, path) {
      const parent = path[path.length - 1];
      const typed =
        key === 'value' &&
        isPair(parent) &&
        isScalar(parent.key) &&
        TYPED_FIELDS.has(String(parent.key.value));
      const inTypedTree = path.some(
        (node) => isPair(node) && isScalar(node.key) && TYPED_TREES.has(String(node.key.value)),
      );
      if (typed || inTypedTree) return;
      if (typeof node.value === 'number' || typeof node.value === 'boolean') {
        node.value = node.source ?? String(node.value);
      }
    },
  });
}

/** Each process on top of the defaults; maps merge with the process's entries winning. */
function withDefaults(processes: unknown, defaults: unknown): unknown {
  if (!Array.isArray(processes) || !isRecord(defaults)) return processes;
  return (processes as unknown[]).map((process) => {
    if (!isRecord(process)) return process;
    const merged: Record<string, unknown> = { ...defaults, ...process };
    for (const field of MERGED_MAPS) {
      if (isRecord(defaults[field]) && isRecord(process[field])) {
        merged[field] = { ...defaults[field], ...process[field] };
      }
    }
    return merged;
  });
}

/**
 * The line of a contract error: the field itself, or — when a process inherited it — the
 * `defaults` entry, or the nearest enclosing object for a missing field.
 */
function locate(
  error: FieldError,
  locator: YamlLocator,
  overrides: SessionOverrides,
): SessionFileProblem {
  const given =
    (error.path === 'session' && overrides.session !== undefined) ||
    (error.path === 'user' && overrides.user !== undefined);
  if (given) return { path: error.path, message: `${error.message} (given on the command line)` };
  const segments = pathSegments(error.path);
  // An unknown field or a bad map key is pointed at by its key, a bad value by the value.
  const named = /(key|value of) "([^"]+)"/.exec(error.message);
  const options = {
    atKey: error.message === 'is not a known field' || named?.[1] === 'key',
    entry: named?.[2],
  };
  let found = locator.locate(segments, options);
  if (segments[0] === 'processes' && found.depth < segments.length) {
    const fromDefaults = locator.locate(['defaults', ...segments.slice(2)], options);
    if (fromDefaults.depth === segments.length - 1) found = fromDefaults;
  }
  return { ...found.location, path: error.path, message: error.message };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
