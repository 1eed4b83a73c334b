import { commandName } from './command-name';
import { CommandType } from './event-types';

describe('commandName', () => {
  it.each([
    ...Object.entries(CommandType).map(([name, type]) => [type, name]),
    ['daq.kpm.command.kill.v2', 'kill'],
    ['daq.kpm.command.some-thing.v1', 'some-thing'],
    ['daq.kpm.kill.accepted.v1', 'daq.kpm.kill.accepted.v1'],
    ['daq.kpm.command.kill', 'daq.kpm.command.kill'],
    ['', ''],
  ])('%s → %s', (type, name) => {
    expect(commandName(type)).toBe(name);
  });
});
