import { randomUUID } from 'node:crypto';
import {
  Body,
  Controller,
  Get,
  HttpCode,
  Inject,
  NotFoundException,
  Param,
  Post,
  Query,
  Req,
  Res,
  UseInterceptors,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import {
  buildEvent,
  CommandType,
  encodeEvent,
  topicName,
  eventSource,
  type CommandCompleted,
} from '@kpm/contracts';
import { KpmSettings } from '@kpm/config';
import { EventProducer } from '@kpm/kafka';
import { AuthenticatedUser } from '@kpm/service-kit';
import type { OpenCommand } from '../domain/state-shard';
import { CommandParams, validated } from '../http/query-params';
import { StreamLimit } from '../http/stream-limit';
import { StateCoordinator } from '../kafka/state-coordinator';
import { StateView } from '../view/state-view';
import { DashboardFeed, type DashboardSnapshot } from './dashboard-feed';
import { DashboardStreamQuery, LogsRequest } from './dashboard-params';
import { sseFrame, sseRetry } from './sse-frame';

/** A stream silent this long is dead to the page, which then reconnects with its cursor. */
const HEARTBEAT_MS = 10_000;
const RECONNECT_MS = 1_000;

/**
 * The dashboard's own API: a snapshot with a cursor, then a stream of every change after that
 * cursor (`/v1/dashboard/stream`), which a reconnecting browser resumes by `Last-Event-ID`.
 */
@Controller('v1/dashboard')
export class DashboardApiController {
  constructor(
    @Inject(DashboardFeed) private readonly feed: DashboardFeed,
    @Inject(EventProducer) private readonly producer: EventProducer,
    @Inject(KpmSettings)
    private readonly settings: Pick<KpmSettings, 'service' | 'instance' | 'kafka'>,
    @Inject(StateView) private readonly view: StateView,
    @Inject(StateCoordinator) private readonly coordinator: StateCoordinator,
  ) {}

  @Get('snapshot')
  snapshot(): DashboardSnapshot {
    return this.feed.snapshot();
  }

  /**
   * A command's progress for the page: like `/v1/commands/:id`, but a command this replica does
   * not know (open on another replica, or its completion not read yet) is `unknown`, not a 404
   * that every poll would print in the browser's console.
   */
  @Get('commands/:id')
  command(
    @Param(validated(CommandParams)) params: CommandParams,
  ):
    | { state: 'completed'; completion: CommandCompleted }
    | { state: 'open'; open: OpenCommand }
    | { state: 'unknown' } {
    const completion = this.view.completion(params.id);
    if (completion) return { state: 'completed', completion };
    const open = this.coordinator.openCommand(params.id);
    return open ? { state: 'open', open } : { state: 'unknown' };
  }

  /** SSE: `row`, `gone`, `command`, `completion`, `termination`, `broadcast`, `heartbeat`, `reset`. */
  @Get('stream')
  @UseInterceptors(StreamLimit)
  stream(
    @Query(validated(DashboardStreamQuery)) query: DashboardStreamQuery,
    @Req() request: Request,
    @Res() response: Response,
  ): void {
    response.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    response.write(sseRetry(RECONNECT_MS));
    const cursor = request.header('last-event-id') || query.after;
    if (cursor !== undefined) {
      const resume = this.feed.log.since(cursor);
      if (!resume.ok) {
        response.end(sseFrame('reset', { reason: resume.reason }));
        return;
      }
      for (const entry of resume.entries)
        response.write(sseFrame(entry.kind, entry.data, entry.id));
    }
    this.follow(request, response);
  }

  /**
   * Asks the boot-worker for a process's log (a `logs` command); the page awaits its completion.
   * With `http.auth` on it asks as the token's user, so session ownership decides (the owner or
   * an operator); with it off, as the process's owner: whoever reaches an open API already reads
   * everything the table holds (docs/design.md §4, session ownership).
   */
  @Post('logs')
  @HttpCode(202)
  async logs(
    @Body(validated(LogsRequest)) body: LogsRequest,
    @AuthenticatedUser() caller: string | undefined,
  ): Promise<{ commandId: string }> {
    const commandId = `dashboard-logs-${randomUUID()}`;
    const [row] = this.view.select({ session: body.session, uuids: [body.uuid] });
    if (!row) throw new NotFoundException(`no process ${body.uuid} in session ${body.session}`);
    const event = buildEvent({
      id: commandId,
      type: CommandType.logs,
      source: eventSource(this.settings.service, this.settings.instance, 'dashboard'),
      subject: body.session,
      data: {
        query: { session: body.session, uuids: [body.uuid] },
        user: caller ?? row.instance.description.metadata.user,
        ...(body.tailLines ? { tailLines: body.tailLines } : {}),
      },
    });
    await this.producer.send(topicName('commands', this.settings.kafka.topicPrefix), [
      encodeEvent(event),
    ]);
    return { commandId };
  }

  /** Live entries from here on, and a heartbeat carrying the cursor while nothing happens. */
  private follow(request: Request, response: Response): void {
    const subscription = this.feed.live.subscribe({
      next: (entry) => response.write(sseFrame(entry.kind, entry.data, entry.id)),
      complete: () => response.end(),
    });
    const heartbeat = setInterval(
      () =>
        response.write(
          sseFrame('heartbeat', { cursor: this.feed.log.cursor, time: new Date().toISOString() }),
        ),
      HEARTBEAT_MS,
    );
    heartbeat.unref();
    request.on('close', () => {
      clearInterval(heartbeat);
      subscription.unsubscribe();
    });
  }
}
