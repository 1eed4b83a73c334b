/** Progress of a boot or kill from its facts, in whatever order they arrive. */
import { EXAMPLE_EVENTS, ProcessEventType, TerminationType, type KpmEvent } from '@kpm/contracts';
import { CommandProgress } from './command-progress';

const UUIDS = ['a', 'b', 'c'].map((c) => `00000000-0000-4000-8000-00000000000${c}`);

const bootAccepted = (commandId: string, count: number): KpmEvent => {
  const e = EXAMPLE_EVENTS[ProcessEventType.bootAccepted];
  const p = e.data.processes[0];
  return {
    ...e,
    data: {
      ...e.data,
      commandId,
      processes: UUIDS.slice(0, count).map((uuid) => ({ ...p, uuid })),
    },
  };
};
const booted = (commandId: string, uuid: string): KpmEvent => {
  const e = EXAMPLE_EVENTS[ProcessEventType.processBooted];
  return { ...e, data: { commandId, process: { ...e.data.process, uuid } } };
};
const bootFailed = (commandId: string, uuid: string): KpmEvent => {
  const e = EXAMPLE_EVENTS[ProcessEventType.processBootFailed];
  return { ...e, data: { ...e.data, commandId, uuid } };
};
const killAccepted = (commandId: string, stages: string[][]): KpmEvent => {
  const e = EXAMPLE_EVENTS[ProcessEventType.killAccepted];
  return { ...e, data: { ...e.data, commandId, stages } };
};
const terminated = (uuid: string): KpmEvent => {
  const e = EXAMPLE_EVENTS[TerminationType.processTerminated];
  return { ...e, data: { ...e.data, uuid } };
};

describe('CommandProgress', () => {
  it("counts a boot's booted and failed processes, and only its own", () => {
    const progress = new CommandProgress('boot-1', 'boot');
    expect(progress.snapshot()).toEqual({ label: 'booted', done: 0, failed: 0, total: undefined });
    expect(progress.observe(bootAccepted('boot-1', 3))).toBe(true);
    progress.observe(booted('boot-1', UUIDS[0]));
    progress.observe(booted('other', UUIDS[1]));
    progress.observe(bootFailed('boot-1', UUIDS[2]));
    expect(progress.observe(booted('boot-1', UUIDS[0]))).toBe(false); // a redelivery counts once
    expect(progress.snapshot()).toEqual({ label: 'booted', done: 2, failed: 1, total: 3 });
  });

  it('counts terminations of the uuids a kill targets, also those that came before it was accepted', () => {
    const progress = new CommandProgress('kill-1', 'kill');
    progress.observe(terminated(UUIDS[0])); // before the kill.accepted that targets it
    progress.observe(terminated('00000000-0000-4000-8000-0000000000ff')); // not a target
    expect(progress.snapshot().done).toBe(0);
    progress.observe(killAccepted('kill-1', [[UUIDS[0], UUIDS[1]], [UUIDS[2]]]));
    expect(progress.snapshot()).toEqual({ label: 'terminated', done: 1, failed: 0, total: 3 });
    progress.observe(terminated(UUIDS[2]));
    progress.observe(terminated(UUIDS[1]));
    expect(progress.snapshot()).toEqual({ label: 'terminated', done: 3, failed: 0, total: 3 });
  });

  it("ignores another command's kill.accepted", () => {
    const progress = new CommandProgress('kill-1', 'kill');
    progress.observe(killAccepted('kill-2', [[UUIDS[0]]]));
    progress.observe(terminated(UUIDS[0]));
    expect(progress.snapshot()).toEqual({
      label: 'terminated',
      done: 0,
      failed: 0,
      total: undefined,
    });
  });
});
