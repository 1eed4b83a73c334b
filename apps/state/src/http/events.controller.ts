import { Controller, Inject, Query, Sse, type MessageEvent } from '@nestjs/common';
import { filter, map, type Observable } from 'rxjs';
import { StateView } from '../view/state-view';
import { EventsQuery, validated } from './query-params';

/**
 * `GET /v1/events`: Server-Sent Events of completions, terminations and broadcasts as they are
 * published; `?session=` keeps one session's. Each SSE event is named by its kind and carries
 * the CloudEvent; its id is the CloudEvent id.
 */
@Controller('v1')
export class EventsController {
  constructor(@Inject(StateView) private readonly view: StateView) {}

  @Sse('events')
  events(@Query(validated(EventsQuery)) query: EventsQuery): Observable<MessageEvent> {
    return this.view.events.pipe(
      filter((e) => !query.session || e.session === query.session),
      map((e) => ({ type: e.kind, id: e.event.id, data: e.event })),
    );
  }
}
