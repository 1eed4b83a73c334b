/**
 * Mutants of the example records, for the specs that hold a fast path to the library it stands
 * in for (the compiled check to class-validator, the compiled transform to class-transformer):
 * the same mutants on every run, so a disagreement can be replayed.
 */
import { CloudEventAttributes } from '../envelope';
import type { EventType } from '../event-types';
import { EXAMPLE_EVENTS } from '../examples';
import { EVENT_TYPES, typeEntry } from '../registry';
import type { ContractClass } from './validate';

/** mulberry32: the same mutants on every run, so a disagreement can be replayed. */
export function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Values that break one rule or another: kinds, empties, bounds, patterns, nesting. */
const NASTY: unknown[] = [
  null,
  '',
  'x',
  'X Y',
  '../etc',
  '/opt/../etc',
  '/opt/daq',
  'a'.repeat(64),
  'a'.repeat(300),
  '2026-11-22T10:00:00.000Z',
  '2026-13-22T10:00:00Z',
  '5d0c3a4e-1f2b-4c3d-8e9f-0a1b2c3d4e5f',
  '5d0c3a4e-1f2b-4c3d-8e9f-0a1b2c3d4e5',
  'RUNNING',
  'DEAD',
  '1.2.3',
  0,
  -1,
  1.5,
  143,
  2 ** 40,
  true,
  false,
  [],
  [null],
  ['x'],
  [{}],
  {},
  { exec: 'x' },
  { unknownField: 1 },
];

export type Json = unknown;
type Slot = { parent: Record<string, Json> | Json[]; key: string | number };

/** Every place in `value` a mutation can land on. */
function slots(value: Json, out: Slot[] = []): Slot[] {
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      out.push({ parent: value, key: i });
      slots(item, out);
    });
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      out.push({ parent: value as Record<string, Json>, key });
      slots(item, out);
    }
  }
  return out;
}

function tweakString(s: string, random: () => number): string {
  const tweaks = [
    () => s.toUpperCase(),
    () => `${s}-`,
    () => ` ${s}`,
    () => s.slice(0, Math.floor(s.length / 2)),
    () => s.repeat(40),
    () => `${s}/../x`,
    () => s.replace(/[0-9]/, 'g'),
  ];
  return tweaks[Math.floor(random() * tweaks.length)]();
}

/** One change at a random place: a nasty value, a tweak, a removal or an unknown field. */
export function mutate(root: Json, random: () => number): void {
  const all = slots(root);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const roll = random();
  if (roll < 0.1 || all.length === 0) {
    (root as Record<string, Json>)[pick(['extra', 'gracePeriodSecond', 'Name'])] = 1;
    return;
  }
  const { parent, key } = pick(all);
  const current = (parent as Record<string | number, Json>)[key];
  if (roll < 0.25 && !Array.isArray(parent)) delete parent[key as string];
  else if (
    roll < 0.35 &&
    typeof current === 'object' &&
    current !== null &&
    !Array.isArray(current)
  )
    (current as Record<string, Json>)[pick(['extra', 'uuid', 'name'])] = pick(NASTY);
  else if (roll < 0.45 && Array.isArray(current) && current.length > 0)
    current.push(jsonClone(current[0]));
  else if (roll < 0.65 && typeof current === 'string')
    (parent as Record<string | number, Json>)[key] = tweakString(current, random);
  else (parent as Record<string | number, Json>)[key] = jsonClone(pick(NASTY));
}

export const CLASSES: Array<[string, ContractClass, Json]> = [
  ...EVENT_TYPES.map((type: EventType): [string, ContractClass, Json] => [
    type,
    typeEntry(type).dataClass,
    EXAMPLE_EVENTS[type].data,
  ]),
  ['the envelope', CloudEventAttributes, envelopeOf(EXAMPLE_EVENTS[EVENT_TYPES[0]])],
];

function envelopeOf(event: object): Json {
  const { data: _data, ...attributes } = event as Record<string, Json>;
  return attributes;
}

/** `count` mutants of `example`, each with one to three changes, seeded by `name`. */
export function mutantsOf(name: string, example: Json, count: number): Json[] {
  const random = prng([...name].reduce((h, c) => (h * 31 + c.charCodeAt(0)) | 0, 7));
  const out: Json[] = [];
  for (let i = 0; i < count; i++) {
    const mutant = jsonClone(example);
    const changes = 1 + Math.floor(random() * 3);
    for (let c = 0; c < changes; c++) mutate(mutant, random);
    out.push(mutant);
  }
  return out;
}

/**
 * A copy through JSON, as a record's value is read. Not `structuredClone`: under Jest its copies
 * come from another realm (their prototype is not this realm's `Object.prototype`).
 */
function jsonClone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
