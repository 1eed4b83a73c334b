import { buildEvent, encodeEvent, ProcessTableType, type ProcessInstance } from '@kpm/contracts';
import { loadSettings } from '@kpm/config';
import type { InboundRecord, KafkaClient } from '@kpm/kafka';
import { Readiness } from '@kpm/service-kit';
import { instance } from '../domain/__fixtures__/facts';
import { SHARD_HEADER } from '../kafka/effect-records';
import { StateView } from './state-view';

const settings = loadSettings('state', { KPM_INSTANCE: 'test' });

function row(statusCode: ProcessInstance['statusCode'] = 'RUNNING'): ProcessInstance {
  return { ...instance('ru-1'), statusCode };
}

/** The `kpm.processes` record the owner writes for `row`, as the view reads it. */
function rowRecord(row: ProcessInstance, offset: number): InboundRecord {
  const event = buildEvent({
    id: `row-${offset}`,
    type: ProcessTableType.processInstance,
    source: '/kpm/state/test',
    subject: row.description.metadata.session,
    data: row,
  });
  const { value } = encodeEvent(event);
  return {
    topic: `${settings.kafka.topicPrefix}.processes`,
    partition: 0,
    offset: String(offset),
    key: row.uuid,
    value: Buffer.from(value),
    headers: { [SHARD_HEADER]: '0' },
    timestamp: '0',
  };
}

/** A caught-up view, fed records as its follower would. */
function caughtUpView() {
  const view = new StateView(settings, {} as KafkaClient, new Readiness());
  const internals = view as unknown as {
    take(record: InboundRecord): void;
    reportCatchUp(remaining: number): void;
  };
  internals.reportCatchUp(0);
  return { view, take: (record: InboundRecord) => internals.take(record) };
}

describe('StateView: rows of owned sessions share the shard’s unchanging parts', () => {
  it('a row taken while the shard holds its process keeps the shard’s description and hosts', () => {
    const own = row();
    const { view, take } = caughtUpView();
    view.shareWith((uuid) => (uuid === own.uuid ? own : undefined));
    take(rowRecord(row('DEAD'), 1));
    const [seen] = view.select({});
    expect(seen.instance.statusCode).toBe('DEAD');
    expect(seen.instance.description).toBe(own.description);
    expect(seen.instance.restriction).toBe(own.restriction);
  });

  it('a row taken before the shard was restored is shared once it is (shareFrom)', () => {
    const { view, take } = caughtUpView();
    take(rowRecord(row(), 1));
    const own = row();
    expect(view.select({})[0].instance.description).not.toBe(own.description);
    view.shareFrom([own]);
    const [seen] = view.select({});
    expect(seen.instance.description).toBe(own.description);
    expect(seen.instance).toEqual(own);
  });

  it('a session this replica does not own keeps the rows as read', () => {
    const { view, take } = caughtUpView();
    view.shareWith(() => undefined);
    take(rowRecord(row(), 1));
    expect(view.select({})[0].instance).toEqual(row());
  });
});
