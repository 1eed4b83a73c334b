import { Broadcaster } from './broadcaster';
import { eventOf, recordingProducer, settingsFor } from './__fixtures__/service-kit-fakes';

describe('Broadcaster', () => {
  it.each([
    { session: 'run-7', subject: 'run-7', emitterSession: { session: 'run-7' } },
    { session: undefined, subject: 'boot-worker', emitterSession: {} },
  ])(
    'keys a broadcast by session, else by service ($subject)',
    async ({ session, subject, emitterSession }) => {
      const { producer, sent } = recordingProducer();
      const broadcaster = new Broadcaster(producer, settingsFor('boot-worker'));
      await broadcaster.broadcast({
        id: 'b-1',
        broadcastType: 'SERVER_READY',
        text: 'ready',
        session,
        data: { n: 1 },
      });
      expect(sent.map((s) => s.topic)).toEqual(['kpmtest.broadcast']);
      const event = eventOf(sent[0].records[0]);
      expect(sent[0].records[0].key).toBe(subject);
      expect(event).toMatchObject({
        id: 'b-1',
        type: 'daq.kpm.broadcast.v1',
        source: '/kpm/boot-worker/bw-0',
        subject,
        data: {
          emitter: { service: 'boot-worker', instance: 'bw-0', ...emitterSession },
          broadcastType: 'SERVER_READY',
          text: 'ready',
          data: { n: 1 },
        },
      });
    },
  );

  it('encodes without sending, for callers that batch the record', () => {
    const { producer, sent } = recordingProducer();
    const record = new Broadcaster(producer, settingsFor('state')).encode({
      id: 'b-2',
      broadcastType: 'SUBPROCESS_STATUS_UPDATE',
      text: 'x',
      session: 's',
    });
    expect(sent).toEqual([]);
    expect(record.key).toBe('s');
  });
});
