/** validateFrozen: a value validated and frozen once is not validated again. */
import { EXAMPLE_EVENTS } from '../examples';
import { BootCommand, KillCommand } from '../commands/commands';
import { CommandType } from '../event-types';
import { validateData, validateFrozen } from './validate';

const boot = () => structuredClone(EXAMPLE_EVENTS[CommandType.boot].data);

describe('validateFrozen', () => {
  it('returns the instance validateData would, frozen to its last leaf', () => {
    const frozen = validateFrozen(BootCommand, boot());
    const fresh = validateData(BootCommand, boot());
    if (!frozen.ok || !fresh.ok) throw new Error('the example boot must be valid');
    expect(frozen.value).toEqual(fresh.value);
    expect(frozen.value).toBeInstanceOf(BootCommand);
    expect(Object.isFrozen(frozen.value)).toBe(true);
    expect(Object.isFrozen(frozen.value.processes)).toBe(true);
    expect(Object.isFrozen(frozen.value.processes[0].executableAndArguments[0])).toBe(true);
    expect(() => {
      (frozen.value.processes as unknown[]).push({});
    }).toThrow(TypeError);
  });

  it('passes the frozen value again as itself, without a new instance', () => {
    const frozen = validateFrozen(BootCommand, boot());
    if (!frozen.ok) throw new Error('the example boot must be valid');
    const again = validateData(BootCommand, frozen.value);
    expect(again.ok && again.value).toBe(frozen.value);
  });

  it('validates a frozen value as another class in full', () => {
    const frozen = validateFrozen(BootCommand, boot());
    if (!frozen.ok) throw new Error('the example boot must be valid');
    expect(validateData(KillCommand, frozen.value).ok).toBe(false);
  });

  it('freezes nothing it refuses, and a plain value validated is a new instance', () => {
    const bad = { ...boot(), session: 'Not A Session!' };
    expect(validateFrozen(BootCommand, bad).ok).toBe(false);
    expect(Object.isFrozen(bad)).toBe(false);
    const plain = boot();
    const checked = validateData(BootCommand, plain);
    expect(checked.ok && checked.value).not.toBe(plain);
  });
});

describe('validateData', () => {
  /** The example boot as a record's JSON, its first process's environment replaced. */
  const bootWithEnv = (env: string, extra = '') => {
    const json = JSON.stringify(EXAMPLE_EVENTS[CommandType.boot].data);
    const value = JSON.parse(json) as { processes: Array<{ env?: unknown }> };
    value.processes[0].env = JSON.parse(env) as unknown;
    return JSON.parse(JSON.stringify(value).replace(/^\{/, `{${extra}`)) as unknown;
  };

  it("keeps every environment variable, those named like Object.prototype's members too", () => {
    const checked = validateData(
      BootCommand,
      bootWithEnv('{"toString": "t", "constructor": "c", "HOME": "/h"}'),
    );
    if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
    expect(checked.value.processes[0].env).toEqual({ toString: 't', constructor: 'c', HOME: '/h' });
  });

  it('refuses, and does not throw, a record class-transformer throws on', () => {
    const checked = validateData(BootCommand, bootWithEnv('{"constructor": "c"}', '"extra": 1,'));
    expect(checked).toEqual({
      ok: false,
      errors: [{ path: '', message: expect.stringMatching(/^cannot be read as BootCommand: /) }],
    });
  });
});
