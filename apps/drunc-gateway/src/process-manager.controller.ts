/**
 * drunc's ProcessManager service on Nest's gRPC transport: each method hands the decoded request
 * to DruncProcessManager with the time by which the caller needs its answer (its gRPC deadline
 * less a margin), and turns a refusal into drunc's rich status. What newer clients tell the
 * server (send_msg, log_on_server, echo_on_server) goes to DruncServerMessages.
 */
import { errorText, logEvent } from '@kpm/common';
import { Controller, Inject, Logger } from '@nestjs/common';
import { GrpcMethod, RpcException } from '@nestjs/microservices';
import type { ServerUnaryCall } from '@grpc/grpc-js';
import { KpmSettings } from '@kpm/config';
import { answerBy } from './calls/answer-by';
import { killBudgetSeconds, sayKillPlan } from './calls/kill-plan';
import { inRpcSpan } from './calls/rpc-span';
import { DruncProcessManager } from './drunc-process-manager';
import { GatewayError } from './errors/gateway-error';
import { DruncServerMessages } from './server-messages/server-messages';
import { DRUNC_SERVICE, DRUNC_SERVICE_PATH } from './wire/proto-files';
import { serverError } from './wire/rich-status';
import type {
  BootRequest,
  LogOnServerRequest,
  LogRequest,
  ProcessQuery,
  Request,
} from './wire/drunc-messages';

type Call = ServerUnaryCall<unknown, unknown>;

@Controller()
export class ProcessManagerController {
  private readonly logger = new Logger('drunc-gateway');

  constructor(
    @Inject(DruncProcessManager) private readonly pm: DruncProcessManager,
    @Inject(KpmSettings) private readonly settings: Pick<KpmSettings, 'gateway'>,
    @Inject(DruncServerMessages) private readonly messages: DruncServerMessages,
  ) {}

  @GrpcMethod(DRUNC_SERVICE, 'send_msg')
  sendMsg(request: Request) {
    return this.answer('send_msg', () => this.messages.sendMsg(request));
  }

  @GrpcMethod(DRUNC_SERVICE, 'log_on_server')
  logOnServer(request: LogOnServerRequest) {
    return this.answer('log_on_server', () => this.messages.logOnServer(request));
  }

  @GrpcMethod(DRUNC_SERVICE, 'echo_on_server')
  echoOnServer(request: LogOnServerRequest) {
    return this.answer('echo_on_server', () => this.messages.echoOnServer(request));
  }

  @GrpcMethod(DRUNC_SERVICE, 'describe')
  describe(request: Request) {
    return this.answer('describe', () => Promise.resolve(this.pm.describe(request)));
  }

  @GrpcMethod(DRUNC_SERVICE, 'boot')
  boot(request: BootRequest, _metadata: unknown, call: Call) {
    return this.answer('boot', () => this.pm.boot(request, this.answerBy(call)));
  }

  @GrpcMethod(DRUNC_SERVICE, 'terminate')
  terminate(request: Request, _metadata: unknown, call: Call) {
    return this.answerWithPlan('terminate', call, (by) => this.pm.terminate(request, by));
  }

  @GrpcMethod(DRUNC_SERVICE, 'restart')
  restart(query: ProcessQuery, _metadata: unknown, call: Call) {
    return this.answer('restart', () => this.pm.restart(query, this.answerBy(call)));
  }

  @GrpcMethod(DRUNC_SERVICE, 'kill')
  kill(query: ProcessQuery, _metadata: unknown, call: Call) {
    return this.answerWithPlan('kill', call, (by) => this.pm.kill(query, by));
  }

  @GrpcMethod(DRUNC_SERVICE, 'flush')
  flush(query: ProcessQuery, _metadata: unknown, call: Call) {
    return this.answer('flush', () => this.pm.flush(query, this.answerBy(call)));
  }

  @GrpcMethod(DRUNC_SERVICE, 'ps')
  ps(query: ProcessQuery) {
    return this.answer('ps', () => this.pm.ps(query));
  }

  @GrpcMethod(DRUNC_SERVICE, 'logs')
  logs(request: LogRequest) {
    return this.answer('logs', () => this.pm.logs(request));
  }

  private answerBy(call: Call): number {
    return answerBy(call, this.settings.gateway);
  }

  /** A kill or terminate: planned inside the caller's deadline, and the reply says so. */
  private answerWithPlan<T>(
    rpc: 'kill' | 'terminate',
    call: Call,
    work: (answerByMs: number) => Promise<T>,
  ): Promise<T> {
    const by = this.answerBy(call);
    const budget = killBudgetSeconds(by);
    return this.answer(rpc, async () => {
      const answer = await work(by);
      sayKillPlan(call, rpc, budget);
      return answer;
    });
  }

  private answer<T>(rpc: string, work: () => Promise<T>): Promise<T> {
    return inRpcSpan(DRUNC_SERVICE_PATH, rpc, () => this.answered(rpc, work));
  }

  private async answered<T>(rpc: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof GatewayError) {
        this.logger.warn(logEvent('rpc.refused', { rpc, error: error.message }));
        throw new RpcException(serverError(error.rich));
      }
      const { stack } = error instanceof Error ? error : {};
      this.logger.error(logEvent('rpc.failed', { rpc, error: errorText(error), stack }));
      throw new RpcException(
        serverError({
          code: 13,
          message: `Unhandled exception in ProcessManager.${rpc}: ${(error as Error).message}`,
          reason: 'COMMAND_EXECUTION_FAILED',
          domain: `ProcessManager.${rpc}`,
        }),
      );
    }
  }
}
