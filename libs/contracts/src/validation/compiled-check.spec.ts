import { plainToInstance } from 'class-transformer';
import { IsString, validateSync } from 'class-validator';
import { CloudEventAttributes } from '../envelope';
import type { EventType } from '../event-types';
import { EXAMPLE_EVENTS } from '../examples';
import { EVENT_TYPES, typeEntry } from '../registry';
import { passesCompiledCheck } from './compiled-check';
import { VALIDATOR_OPTIONS, type ContractClass } from './validate';

/** What class-validator itself says of `plain` as an instance of `cls`. */
function classValidatorAccepts(cls: ContractClass, plain: unknown): boolean {
  return validateSync(plainToInstance<object, unknown>(cls, plain), VALIDATOR_OPTIONS).length === 0;
}

function compiledAccepts(cls: ContractClass, plain: unknown): boolean {
  return passesCompiledCheck(plainToInstance<object, unknown>(cls, plain));
}

/** mulberry32: the same mutants on every run, so a disagreement can be replayed. */
function prng(seed: number): () => number {
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

type Json = unknown;
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
function mutate(root: Json, random: () => number): void {
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
    current.push(structuredClone(current[0]));
  else if (roll < 0.65 && typeof current === 'string')
    (parent as Record<string | number, Json>)[key] = tweakString(current, random);
  else (parent as Record<string | number, Json>)[key] = structuredClone(pick(NASTY));
}

const CLASSES: Array<[string, ContractClass, Json]> = [
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

describe('passesCompiledCheck', () => {
  it.each(CLASSES)('accepts the example %s, so its class has a plan', (_name, cls, example) => {
    expect(classValidatorAccepts(cls, example)).toBe(true);
    expect(compiledAccepts(cls, example)).toBe(true);
  });

  it.each(CLASSES)(
    'agrees with class-validator on 600 mutants of the example %s',
    (name, cls, example) => {
      const random = prng([...name].reduce((h, c) => (h * 31 + c.charCodeAt(0)) | 0, 7));
      const disagreements: string[] = [];
      const verdicts = { accepted: 0, refused: 0 };
      for (let i = 0; i < 600; i++) {
        const mutant = structuredClone(example);
        const changes = 1 + Math.floor(random() * 3);
        for (let c = 0; c < changes; c++) mutate(mutant, random);
        const expected = classValidatorAccepts(cls, mutant);
        verdicts[expected ? 'accepted' : 'refused']++;
        if (compiledAccepts(cls, mutant) !== expected)
          disagreements.push(`class-validator ${expected}: ${JSON.stringify(mutant)}`);
      }
      expect(disagreements.slice(0, 3)).toEqual([]);
      // The mutants reach both verdicts, or the comparison would prove little.
      expect(verdicts.refused).toBeGreaterThan(300);
    },
  );

  it.each(['hasOwnProperty', 'constructor', '__proto__', 'toString'])(
    'agrees on a field named %s, which class-transformer drops before either looks',
    (name) => {
      const example = EXAMPLE_EVENTS[EVENT_TYPES[0]].data;
      const cls = typeEntry(EVENT_TYPES[0]).dataClass;
      const plain = JSON.parse(`{"${name}": {"a": 1}, ${JSON.stringify(example).slice(1)}`) as Json;
      expect(compiledAccepts(cls, plain)).toBe(classValidatorAccepts(cls, plain));
    },
  );

  it('has no plan for a class using validation groups, so it answers no', () => {
    class Grouped {
      @IsString({ groups: ['strict'] })
      name!: string;
    }
    const value = plainToInstance(Grouped, { name: 'x' });
    expect(validateSync(value, VALIDATOR_OPTIONS)).toHaveLength(0);
    expect(passesCompiledCheck(value)).toBe(false);
  });

  it('answers no for a plain object, as forbidUnknownValues does', () => {
    expect(passesCompiledCheck({ name: 'x' })).toBe(false);
  });
});
