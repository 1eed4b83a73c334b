import 'reflect-metadata';
import { Exclude, Expose, plainToInstance, Transform, Type } from 'class-transformer';
import { IsArray, IsInt, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { compiledPlainToInstance } from './compiled-transform';
import { CLASSES, mutantsOf, type Json } from './mutants.fixture';

/** The compiled build, which must be class-transformer's instance whenever it builds one. */
function compare(cls: new () => object, plain: object): 'built' | 'unsure' {
  const built = compiledPlainToInstance(cls, plain);
  if (built === undefined) return 'unsure';
  expect(built).toStrictEqual(plainToInstance(cls, plain));
  return 'built';
}

describe('compiledPlainToInstance', () => {
  it.each(CLASSES)('builds the example %s as class-transformer does', (_name, cls, example) => {
    expect(compare(cls, example as object)).toBe('built');
  });

  it.each(CLASSES)(
    'builds 600 mutants of the example %s as class-transformer does, or leaves them to it',
    (name, cls, example) => {
      const verdicts = { built: 0, unsure: 0 };
      for (const mutant of mutantsOf(name, example, 600)) {
        if (typeof mutant !== 'object' || mutant === null || Array.isArray(mutant)) continue;
        verdicts[compare(cls, mutant)]++;
      }
      // Most mutants are built (a wrong value of a known field is still built); those with an
      // unknown field are left to class-transformer.
      expect(verdicts.built).toBeGreaterThan(300);
      expect(verdicts.unsure).toBeGreaterThan(0);
    },
  );

  class Leaf {
    @IsString()
    name!: string;
  }

  class Tree {
    @IsOptional()
    @ValidateNested({ each: true })
    @Type(() => Leaf)
    leaves?: Leaf[];

    @IsOptional()
    @Type(() => Number)
    @IsInt()
    count?: number;

    @IsOptional()
    @IsObject()
    labels?: Record<string, Json>;

    @IsOptional()
    @IsString()
    status = 'new';

    @IsOptional()
    @IsString()
    get shown(): string {
      return 'always';
    }
  }

  it.each([
    ['nested instances in an array', '{"leaves": [{"name": "a"}, null, "x", [{"name": "b"}]]}'],
    ['a number from a string, as @Type(() => Number) does', '{"count": "42"}'],
    ['a map, nested', '{"labels": {"a": {"b": [1, {"c": null}]}}}'],
    ['a default overwritten, and null kept', '{"status": null, "labels": null}'],
    ['a getter without a setter, left out', '{"shown": "changed"}'],
    ['__proto__ at the top', '{"__proto__": {"name": "x"}, "count": 1}'],
  ])('builds %s as class-transformer does', (_name, json) => {
    expect(compare(Tree, JSON.parse(json) as object)).toBe('built');
  });

  it('keeps every key of a map, where class-transformer drops some and throws on one', () => {
    const plain = JSON.parse(
      '{"labels": {"toString": "t", "constructor": "c", "__proto__": "p", "a": "b"}}',
    ) as object;
    const built = compiledPlainToInstance(Tree, plain) as Tree;
    expect(built).toBeInstanceOf(Tree);
    expect(Object.entries(built.labels!)).toEqual([
      ['toString', 't'],
      ['constructor', 'c'],
      ['__proto__', 'p'],
      ['a', 'b'],
    ]);
    expect(Object.getPrototypeOf(built.labels)).toBe(Object.prototype);
    expect(() => plainToInstance(Tree, plain)).toThrow(TypeError);
    expect(plainToInstance(Tree, { labels: { toString: 't' } }).labels).toEqual({});
  });

  it('leaves a field validation does not know to class-transformer (it is refused anyway)', () => {
    expect(compare(Tree, { extra: 1 })).toBe('unsure');
  });

  it.each([
    ['a Date', { labels: { at: new Date(0) } }],
    ['a Map', { labels: new Map() }],
    ['an instance', { leaves: [new Leaf()] }],
  ])('leaves %s, which JSON cannot hold, to class-transformer', (_name, plain) => {
    expect(compare(Tree, plain)).toBe('unsure');
  });

  class Exposed {
    @Expose({ name: 'other' })
    @IsString()
    name!: string;
  }

  class Excluded {
    @Exclude()
    @IsString()
    name!: string;
  }

  class Transformed {
    @Transform(({ value }: { value: unknown }) => String(value).toUpperCase())
    @IsString()
    name!: string;
  }

  class Discriminated {
    @IsArray()
    @Type(() => Leaf, {
      discriminator: { property: 'kind', subTypes: [{ value: Leaf, name: 'leaf' }] },
    })
    items!: Leaf[];
  }

  class Timed {
    @IsOptional()
    @Type(() => Date)
    at!: Date;
  }

  class WithSet {
    @Type(() => Leaf)
    @IsArray()
    leaves!: Set<Leaf>;
  }

  it.each([
    ['@Expose', Exposed, { name: 'x' }],
    ['@Exclude', Excluded, { name: 'x' }],
    ['@Transform', Transformed, { name: 'x' }],
    ['a discriminator', Discriminated, { items: [{ kind: 'leaf', name: 'x' }] }],
    ['a Date target', Timed, { at: '2026-11-29T00:00:00Z' }],
    ['a Set-typed property', WithSet, { leaves: [{ name: 'x' }] }],
  ])('leaves a class with %s to class-transformer', (_name, cls, plain) => {
    expect(compare(cls as new () => object, plain)).toBe('unsure');
  });
});
