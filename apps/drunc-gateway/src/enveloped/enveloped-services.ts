/**
 * The enveloped era's services on the gateway's gRPC server, beside druncschema 1.1.0's on the
 * same port (the service names differ: `dunedaq.druncschema.ProcessManager` and
 * `dunedaq.druncschema.SessionManager` against `dunedaq.druncschema.process_manager.…`).
 * Handlers answer every call with a Response, never a gRPC error (enveloped-answer.ts).
 */
import { logEvent } from '@kpm/common';
import type {
  handleServerStreamingCall,
  handleUnaryCall,
  Server,
  ServerUnaryCall,
  ServerWritableStream,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { Logger } from '@nestjs/common';
import { killBudgetSeconds, sayKillPlan } from '../calls/kill-plan';
import { inRpcSpan } from '../calls/rpc-span';
import type { DruncProcessManager } from '../drunc-process-manager';
import { ResponseFlag } from '../wire/drunc-messages';
import { EnvelopedProcessManager } from './enveloped-process-manager';
import { EnvelopedSessionManager, NOT_IMPLEMENTED_SESSION_RPCS } from './enveloped-session-manager';
import { EnvelopedWire, type EnvelopedRequest, type EnvelopedResponse } from './enveloped-wire';

export interface EnvelopedOptions {
  name: string;
  /** `<file>:<session id>` of each configuration the SessionManager lists. */
  configurations: readonly string[];
  /** When the call must be answered (its deadline less the gateway's margin). */
  answerBy: (call: ServerUnaryCall<unknown, unknown>) => number;
}

type Unary = handleUnaryCall<EnvelopedRequest, EnvelopedResponse>;
const ENVELOPED_PROCESS_MANAGER = 'dunedaq.druncschema.ProcessManager';
const ENVELOPED_SESSION_MANAGER = 'dunedaq.druncschema.SessionManager';
const logger = new Logger('drunc-gateway');

/**
 * What an answer tells beside its Response: a kill or terminate that ran (FAILED: it ended only
 * part) was planned inside the call's deadline, and the reply's metadata says so; a call not
 * executed is logged.
 */
function answered(
  call: ServerUnaryCall<unknown, unknown>,
  rpc: string,
  flag: ResponseFlag,
  killBudget: number,
): void {
  const ran = flag === ResponseFlag.EXECUTED_SUCCESSFULLY || flag === ResponseFlag.FAILED;
  if ((rpc === 'kill' || rpc === 'terminate') && ran) sayKillPlan(call, rpc, killBudget);
  if (flag !== ResponseFlag.EXECUTED_SUCCESSFULLY)
    logger.warn(logEvent('rpc.not_executed', { era: 'enveloped', rpc, flag: ResponseFlag[flag] }));
}

export function addEnvelopedServices(
  server: Server,
  pm: DruncProcessManager,
  options: EnvelopedOptions,
): void {
  const wire = new EnvelopedWire();
  const services = wire.services();
  const era = new EnvelopedProcessManager(pm, wire, options.name);
  const sessions = new EnvelopedSessionManager(pm, wire, options.name, options.configurations);
  const unary =
    (
      rpc: string,
      work: (request: EnvelopedRequest, answerByMs: number) => Promise<EnvelopedResponse>,
      service = ENVELOPED_PROCESS_MANAGER,
    ): Unary =>
    (call, callback) => {
      const by = options.answerBy(call);
      const budget = killBudgetSeconds(by);
      inRpcSpan(service, rpc, () => work(call.request, by)).then(
        (response) => {
          answered(call, rpc, response.flag, budget);
          callback(null, response);
        },
        (error: Error) => callback(error),
      );
    };
  const logs: handleServerStreamingCall<EnvelopedRequest, EnvelopedResponse> = (
    call: ServerWritableStream<EnvelopedRequest, EnvelopedResponse>,
  ) => {
    void era.logs(call.request).then((responses) => {
      for (const response of responses) call.write(response);
      call.end();
    });
  };
  const processManager: UntypedServiceImplementation = {
    describe: unary('describe', (r) => era.describe(r)),
    boot: unary('boot', (r, by) => era.boot(r, by)),
    terminate: unary('terminate', (r, by) => era.terminate(r, by)),
    restart: unary('restart', (r, by) => era.restart(r, by)),
    kill: unary('kill', (r, by) => era.kill(r, by)),
    flush: unary('flush', (r, by) => era.flush(r, by)),
    ps: unary('ps', (r) => era.ps(r)),
    logs,
  };
  const session = (
    rpc: string,
    work: (request: EnvelopedRequest) => Promise<EnvelopedResponse>,
  ): Unary => unary(rpc, work, ENVELOPED_SESSION_MANAGER);
  const sessionManager: UntypedServiceImplementation = {
    describe: session('describe', () => Promise.resolve(sessions.describe())),
    list_all_sessions: session('list_all_sessions', (r) => sessions.list_all_sessions(r)),
    list_all_configs: session('list_all_configs', () =>
      Promise.resolve(sessions.list_all_configs()),
    ),
    ...Object.fromEntries(
      NOT_IMPLEMENTED_SESSION_RPCS.map((rpc) => [
        rpc,
        session(rpc, (r) => Promise.resolve(sessions.notImplemented(rpc, r))),
      ]),
    ),
  };
  server.addService(services.processManager, processManager);
  server.addService(services.sessionManager, sessionManager);
}
