import { Inject, Injectable } from '@nestjs/common';
import {
  BroadcastEventType,
  buildEvent,
  encodeEvent,
  topicName,
  eventSource,
  type Broadcast,
  type BroadcastType,
} from '@kpm/contracts';
import { KpmSettings } from '@kpm/config';
import { EventProducer } from '@kpm/kafka';

export interface BroadcastInput {
  /** Derived from what caused it (eventId(...)), so a re-broadcast after a crash has the same id. */
  id: string;
  broadcastType: BroadcastType;
  text: string;
  session?: string;
  data?: Record<string, unknown>;
}

/** drunc's broadcast model on `kpm.broadcast`, keyed by session (or by service for service-wide news). */
@Injectable()
export class Broadcaster {
  // Explicit tokens: tsx (esbuild) emits no decorator metadata for Nest to infer them from.
  constructor(
    @Inject(EventProducer) private readonly producer: EventProducer,
    @Inject(KpmSettings)
    private readonly settings: Pick<KpmSettings, 'service' | 'instance' | 'kafka'>,
  ) {}

  async broadcast(input: BroadcastInput): Promise<void> {
    await this.producer.send(topicName('broadcast', this.settings.kafka.topicPrefix), [
      this.encode(input),
    ]);
  }

  /** The record, for callers that batch it with other writes. */
  encode(input: BroadcastInput): ReturnType<typeof encodeEvent> {
    const { service, instance } = this.settings;
    const data: Broadcast = {
      emitter: { service, instance, session: input.session },
      broadcastType: input.broadcastType,
      text: input.text,
      data: input.data,
    };
    const event = buildEvent({
      id: input.id,
      type: BroadcastEventType.broadcast,
      source: eventSource(service, instance),
      subject: input.session ?? service,
      data,
    });
    return encodeEvent(event);
  }
}
