import { CommandType } from './event-types';
import { typeLabel, UNKNOWN_TYPE_LABEL } from './registry';

describe('typeLabel', () => {
  it.each([
    [CommandType.boot, CommandType.boot],
    ['daq.kpm.command.reboot.v1', UNKNOWN_TYPE_LABEL],
    ['x'.repeat(4 * 1024 * 1024), UNKNOWN_TYPE_LABEL],
    ['toString', UNKNOWN_TYPE_LABEL],
  ])('labels %s as %s', (type, label) => {
    expect(typeLabel(type)).toBe(label);
  });
});
