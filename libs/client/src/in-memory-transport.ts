/**
 * A message bus in memory with the semantics the client relies on (ordered topics, subscriptions
 * from a fixed start, readers that slow delivery down), for unit tests of code that uses the
 * client. `respond` plays the services: it sees every published record and may publish answers.
 */
import type { EncodedRecord } from '@kpm/contracts';
import type { ClientTransport, ReceivedRecord, SubscribeRequest, Subscription } from './transport';

type Responder = (topic: string, record: EncodedRecord) => void | Promise<void>;

interface Reader {
  request: SubscribeRequest;
  /** Next offset to deliver, per topic. */
  next: Map<string, number>;
  delivering: boolean;
  closed: boolean;
}

export class InMemoryTransport implements ClientTransport {
  readonly topics = new Map<string, ReceivedRecord[]>();
  private readonly readers = new Set<Reader>();
  private readonly responders: Responder[] = [];
  /** Set to make the next publish fail, as a broker outage would. */
  failNextPublish?: Error;

  /** Registers a stand-in for the services. */
  respond(responder: Responder): this {
    this.responders.push(responder);
    return this;
  }

  async publish(topic: string, records: readonly EncodedRecord[]): Promise<void> {
    const failure = this.failNextPublish;
    this.failNextPublish = undefined;
    if (failure) throw failure;
    const log = this.log(topic);
    for (const record of records) {
      log.push({
        topic,
        partition: 0,
        offset: String(log.length),
        key: record.key,
        value: record.value,
      });
    }
    for (const reader of this.readers) this.wake(reader);
    for (const record of records) {
      for (const responder of this.responders) await responder(topic, record);
    }
  }

  subscribe(request: SubscribeRequest): Promise<Subscription> {
    const reader: Reader = { request, next: new Map(), delivering: false, closed: false };
    for (const topic of request.topics) {
      reader.next.set(topic, request.from === 'latest' ? this.log(topic).length : 0);
    }
    this.readers.add(reader);
    this.wake(reader);
    return Promise.resolve({
      close: () => {
        reader.closed = true;
        this.readers.delete(reader);
        return Promise.resolve();
      },
    });
  }

  /** Ends every subscription of `topic` with `error`, as a lost broker would. */
  breakSubscriptions(error: Error): void {
    for (const reader of [...this.readers]) {
      reader.closed = true;
      this.readers.delete(reader);
      reader.request.onError(error);
    }
  }

  get subscriptionCount(): number {
    return this.readers.size;
  }

  close(): Promise<void> {
    for (const reader of this.readers) reader.closed = true;
    this.readers.clear();
    return Promise.resolve();
  }

  private log(topic: string): ReceivedRecord[] {
    let log = this.topics.get(topic);
    if (!log) this.topics.set(topic, (log = []));
    return log;
  }

  /** Delivers what a reader has not seen yet, one record at a time, awaiting the reader. */
  private wake(reader: Reader): void {
    if (reader.delivering) return;
    reader.delivering = true;
    void (async () => {
      try {
        for (let record = this.pending(reader); record; record = this.pending(reader)) {
          reader.next.set(record.topic, Number(record.offset) + 1);
          await reader.request.onRecord(record);
        }
      } finally {
        reader.delivering = false;
      }
    })();
  }

  private pending(reader: Reader): ReceivedRecord | undefined {
    if (reader.closed) return undefined;
    for (const [topic, next] of reader.next) {
      const record = this.log(topic)[next];
      if (record) return record;
    }
    return undefined;
  }
}
