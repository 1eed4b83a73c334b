import { Controller, Get, Inject, NotFoundException, Param, Query } from '@nestjs/common';
import type { CommandCompleted, ProcessInstance } from '@kpm/contracts';
import { StateCoordinator } from '../kafka/state-coordinator';
import type { OpenCommand } from '../domain/state-shard';
import { StateView, type SessionCounts } from '../view/state-view';
import { CommandParams, ProcessesQuery, validated } from './query-params';

/** The process table, commands and sessions as the state service knows them. */
@Controller('v1')
export class ProcessesController {
  constructor(
    @Inject(StateView) private readonly view: StateView,
    @Inject(StateCoordinator) private readonly partitions: StateCoordinator,
  ) {}

  @Get('processes')
  processes(@Query(validated(ProcessesQuery)) query: ProcessesQuery): {
    processes: ProcessInstance[];
  } {
    const rows = this.view.select(
      {
        ...(query.session ? { session: query.session } : {}),
        ...(query.user ? { user: query.user } : {}),
        ...(query.name ? { names: [query.name] } : {}),
        ...(query.uuid ? { uuids: [query.uuid] } : {}),
      },
      query.status,
    );
    return { processes: rows.map((row) => row.instance) };
  }

  /** The completion once published; while open (on the replica that owns it), what is pending. */
  @Get('commands/:id')
  command(
    @Param(validated(CommandParams)) params: CommandParams,
  ): { state: 'completed'; completion: CommandCompleted } | ({ state: 'open' } & OpenCommand) {
    const completion = this.view.completion(params.id);
    if (completion) return { state: 'completed', completion };
    const open = this.partitions.openCommand(params.id);
    if (open) return { state: 'open', ...open };
    throw new NotFoundException({
      statusCode: 404,
      error: 'Not Found',
      message: `command ${params.id} has no completion here and is not open on the partitions this replica owns [${this.partitions.owned().join(', ')}]`,
    });
  }

  @Get('sessions')
  sessions(): { sessions: SessionCounts[] } {
    return { sessions: this.view.sessions() };
  }
}
