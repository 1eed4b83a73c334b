/** `events()` over an in-memory bus: start position, session filter, types, backpressure, close. */
import {
  BroadcastEventType,
  encodeEvent,
  EXAMPLE_EVENTS,
  TerminationType,
  topicName,
  type KpmEvent,
} from '@kpm/contracts';
import { EventStream } from './event-stream';
import { InMemoryTransport } from './in-memory-transport';
import { ProcessManagerClient } from './process-manager-client';

const PREFIX = 'unit';
const termination = EXAMPLE_EVENTS[TerminationType.processTerminated];
const broadcast = EXAMPLE_EVENTS[BroadcastEventType.broadcast];

/** The example termination, moved to `session` with its own id. */
function terminated(session: string, id: string): KpmEvent {
  return { ...termination, id, subject: session, data: { ...termination.data, session } };
}

describe('ProcessManagerClient.events', () => {
  let bus: InMemoryTransport;
  let client: ProcessManagerClient;
  const emit = (topic: 'terminations' | 'broadcast', event: KpmEvent) =>
    bus.publish(topicName(topic, PREFIX), [encodeEvent(event)]);

  beforeEach(() => {
    bus = new InMemoryTransport();
    client = new ProcessManagerClient(bus, { topicPrefix: PREFIX });
  });
  afterEach(() => client.close());

  it("starts at the topics' end and delivers only the session's events", async () => {
    await emit('terminations', terminated('session-a', 'before'));
    const stream = client.events({ session: 'session-a' });
    await stream.ready();
    await emit('terminations', terminated('session-b', 'other-session'));
    await emit('terminations', terminated('session-a', 'mine'));
    const serviceWide = { ...broadcast, id: 'ready', subject: 'state' };
    serviceWide.data = { ...broadcast.data, emitter: { service: 'state', instance: 'x' } };
    await emit('broadcast', serviceWide);
    await emit('broadcast', { ...broadcast, id: 'said' });
    expect((await stream.next()).value?.id).toBe('mine');
    expect((await stream.next()).value?.id).toBe('said');
    await stream.close();
    expect(await stream.next()).toEqual({ value: undefined, done: true });
    expect(bus.subscriptionCount).toBe(0);
  });

  it('replays from the beginning and filters by type', async () => {
    await emit('broadcast', { ...broadcast, id: 'b1' });
    await emit('terminations', terminated('session-a', 't1'));
    const stream = client.events({
      fromBeginning: true,
      types: [TerminationType.processTerminated],
    });
    const ids: string[] = [];
    for await (const event of stream) {
      ids.push(event.id);
      break; // `break` closes the stream and its subscription
    }
    expect(ids).toEqual(['t1']);
    expect(bus.subscriptionCount).toBe(0);
  });

  it('skips records that are not valid kpm events', async () => {
    const stream = client.events();
    await stream.ready();
    await bus.publish(topicName('terminations', PREFIX), [
      { key: 'x', value: Buffer.from('not json'), headers: {} },
    ]);
    await emit('terminations', terminated('session-a', 'valid'));
    expect((await stream.next()).value?.id).toBe('valid');
    await stream.close();
  });

  it('surfaces a broken subscription to the reader', async () => {
    const stream = client.events();
    await stream.ready();
    bus.breakSubscriptions(new Error('broker gone'));
    await expect(stream.next()).rejects.toThrow('broker gone');
  });
});

describe('EventStream', () => {
  it('holds the producer back at its high-water mark and releases it as the reader reads', async () => {
    const stream = new EventStream(2);
    stream.attach(() => Promise.resolve());
    const event = (id: string) => ({ ...termination, id });
    await stream.push(event('1'));
    let secondAccepted = false;
    const second = stream.push(event('2')).then(() => (secondAccepted = true));
    await Promise.resolve();
    expect(secondAccepted).toBe(false); // full: the transport waits, nothing is dropped
    expect((await stream.next()).value?.id).toBe('1');
    await second;
    expect(secondAccepted).toBe(true);
    expect((await stream.next()).value?.id).toBe('2');
  });

  it('delivers buffered events before a failure', async () => {
    const stream = new EventStream();
    stream.attach(() => Promise.resolve());
    await stream.push({ ...termination, id: 'kept' });
    stream.fail(new Error('lost'));
    expect((await stream.next()).value?.id).toBe('kept');
    await expect(stream.next()).rejects.toThrow('lost');
  });
});
