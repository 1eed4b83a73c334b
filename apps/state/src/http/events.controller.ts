import { Controller, Inject, Query, Sse, UseInterceptors, type MessageEvent } from '@nestjs/common';
import { filter, interval, map, merge, type Observable } from 'rxjs';
import { StateView } from '../view/state-view';
import { EventsQuery, validated } from './query-params';
import { StreamLimit } from './stream-limit';

/** A quiet stream still sends this often, so proxies and clients can tell it is alive. */
const EVENTS_HEARTBEAT_MS = 10_000;

/**
 * `GET /v1/events`: Server-Sent Events of completions, terminations and broadcasts as they are
 * published; `?session=` keeps one session's. Each SSE event is named by its kind and carries
 * the CloudEvent; its id is the CloudEvent id. A `heartbeat` event every 10 s keeps it alive.
 */
@Controller('v1')
export class EventsController {
  constructor(@Inject(StateView) private readonly view: StateView) {}

  @Sse('events')
  @UseInterceptors(StreamLimit)
  events(@Query(validated(EventsQuery)) query: EventsQuery): Observable<MessageEvent> {
    const events = this.view.events.pipe(
      filter((e) => !query.session || e.session === query.session),
      map((e): MessageEvent => ({ type: e.kind, id: e.event.id, data: e.event })),
    );
    const heartbeats = interval(EVENTS_HEARTBEAT_MS).pipe(
      map((): MessageEvent => ({ type: 'heartbeat', data: { time: new Date().toISOString() } })),
    );
    return merge(events, heartbeats);
  }
}
