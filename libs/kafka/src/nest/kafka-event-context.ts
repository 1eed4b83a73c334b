import { BaseRpcContext } from '@nestjs/microservices';
import type { InboundRecord } from '../inbound-record';
import type { RecordContext } from '../consumer-runner';

/** The `@Ctx()` of kpm's Kafka handlers: the record's coordinates and a heartbeat for long work. */
export class KafkaEventContext extends BaseRpcContext<[InboundRecord, RecordContext]> {
  get record(): InboundRecord {
    return this.args[0];
  }

  heartbeat(): Promise<void> {
    return this.args[1].heartbeat();
  }

  get signal(): AbortSignal {
    return this.args[1].signal;
  }
}
