import type { INestApplication } from '@nestjs/common';
import { Kafka, logLevel } from 'kafkajs';
import { CommandType } from '@kpm/contracts';
import { runService } from '@kpm/service-kit';
import { StateModule } from '../../apps/state/src/state.module';
import { isCompletion, StateBench } from '../support/state-bench';
import { bootAccepted, processBooted, queryCommand, testProcesses } from '../support/state-facts';
import { testSettings } from '../support/services';
import { stackEnv, uniqueTopicPrefix } from '../support/stack-env';

/**
 * No litter on a shared cluster, and no join to wait for (docs/design.md §2.1): a state service
 * that restores its history and starts its view is a member of no consumer group but
 * `<prefix>-state`, the group whose offsets it commits; its view and its history reads join none,
 * while it runs or after.
 */
jest.setTimeout(180_000);

const prefix = uniqueTopicPrefix('groups');
const settings = testSettings('state', prefix);
const admin = new Kafka({ brokers: stackEnv().brokers, logLevel: logLevel.NOTHING }).admin();
let bench: StateBench;

const start = (): Promise<INestApplication> =>
  runService(StateModule.register(settings), settings, StateModule.consumer(settings));

const groupsOfPrefix = async (): Promise<string[]> =>
  (await admin.listGroups()).groups
    .map((g) => g.groupId)
    .filter((id) => id.startsWith(`${prefix}-`))
    .sort();

beforeAll(async () => {
  await admin.connect();
});

afterAll(async () => {
  await bench?.stop();
  await admin.disconnect();
});

it('has only <prefix>-state through a restore with history and a view start, and after stop', async () => {
  let state = await start();
  bench = await new StateBench(prefix, ['completions']).start();
  const processes = testProcesses(`${prefix}-session`, 3);
  await bench.send(
    'process-events',
    bootAccepted('groups-boot', processes[0].session, processes),
    ...processes.map((p) => processBooted('groups-boot', p)),
  );
  await bench.probe.waitFor(isCompletion('groups-boot'), 60_000);
  await state.close();
  const before = await groupsOfPrefix();
  expect(before).toEqual([`${prefix}-state`]);

  // The restart restores the partition's completions and facts, and replays the view.
  state = await start();
  // A ps is answered only once the partition is restored.
  await bench.send('commands', queryCommand(CommandType.ps, 'groups-ps', processes[0].session));
  await bench.probe.waitFor(isCompletion('groups-ps'), 60_000);
  expect(await groupsOfPrefix()).toEqual([`${prefix}-state`]);
  await state.close();
  expect(await groupsOfPrefix()).toEqual(before);
});
