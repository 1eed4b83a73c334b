import { plainToInstance } from 'class-transformer';
import { IsString, validateSync } from 'class-validator';
import { EXAMPLE_EVENTS } from '../examples';
import { EVENT_TYPES, typeEntry } from '../registry';
import { passesCompiledCheck } from './compiled-check';
import { CLASSES, mutantsOf, type Json } from './mutants.fixture';
import { VALIDATOR_OPTIONS, type ContractClass } from './validate';

/** What class-validator itself says of `plain` as an instance of `cls`. */
function classValidatorAccepts(cls: ContractClass, plain: unknown): boolean {
  return validateSync(plainToInstance<object, unknown>(cls, plain), VALIDATOR_OPTIONS).length === 0;
}

function compiledAccepts(cls: ContractClass, plain: unknown): boolean {
  return passesCompiledCheck(plainToInstance<object, unknown>(cls, plain));
}

describe('passesCompiledCheck', () => {
  it.each(CLASSES)('accepts the example %s, so its class has a plan', (_name, cls, example) => {
    expect(classValidatorAccepts(cls, example)).toBe(true);
    expect(compiledAccepts(cls, example)).toBe(true);
  });

  it.each(CLASSES)(
    'agrees with class-validator on 600 mutants of the example %s',
    (name, cls, example) => {
      const disagreements: string[] = [];
      const verdicts = { accepted: 0, refused: 0 };
      for (const mutant of mutantsOf(name, example, 600)) {
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
