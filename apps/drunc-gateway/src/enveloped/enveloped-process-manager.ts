/**
 * drunc's ProcessManager of the enveloped era (drunc v0.10, and the drunc drunc's web UI pins)
 * over the same mapping as druncschema 1.1.0's: each call's Any is unpacked to the era's payload,
 * which has 1.1.0's fields less the token (the Request carries it), handed to
 * {@link DruncProcessManager} with the Request's token, and its answer packed as the payload the
 * era's driver unpacks (`outformat`): boot and restart one ProcessInstance, ps, kill, flush and
 * terminate a ProcessInstanceList, describe a Description; logs streams one LogLine per
 * Response. Refusals are flags (enveloped-answer.ts).
 */
import { DRUNC_COMMANDS } from '../describe';
import type { DruncProcessManager } from '../drunc-process-manager';
import {
  ResponseFlag,
  type BootRequest,
  type LogRequest,
  type ProcessInstanceList,
  type ProcessQuery,
} from '../wire/drunc-messages';
import { EnvelopedAnswers } from './enveloped-answer';
import type {
  EnvelopedRequest,
  EnvelopedResponse,
  EnvelopedType,
  EnvelopedWire,
} from './enveloped-wire';

/** What drunc's enveloped process manager says each command takes and returns. */
const RETURNS: Record<string, string> = {
  describe: 'request_response_pb2.Description',
  boot: 'process_manager_pb2.ProcessInstance',
  restart: 'process_manager_pb2.ProcessInstance',
  logs: 'process_manager_pb2.LogLine',
};
const TAKES: Record<string, string[]> = {
  terminate: ['process_manager_pb2.ProcessQuery'],
};

export class EnvelopedProcessManager {
  private readonly answers: EnvelopedAnswers;

  constructor(
    private readonly pm: DruncProcessManager,
    private readonly wire: EnvelopedWire,
    private readonly name: string,
  ) {
    this.answers = new EnvelopedAnswers(wire, name);
  }

  describe(request: EnvelopedRequest): Promise<EnvelopedResponse> {
    const description = {
      type: 'process_manager',
      name: this.name,
      session: 'no_session',
      commands: DRUNC_COMMANDS.map((c) => ({
        ...c,
        data_type: TAKES[c.name] ?? [...c.data_type],
        return_type: RETURNS[c.name] ?? c.return_type,
      })),
    };
    return this.call('describe', request, null, 'Description', () =>
      Promise.resolve(answered(description)),
    );
  }

  boot(request: EnvelopedRequest, answerByMs: number): Promise<EnvelopedResponse> {
    return this.call('boot', request, 'BootRequest', 'ProcessInstance', async (boot: BootRequest) =>
      answered(only(await this.pm.boot({ ...boot, token: request.token }, answerByMs))),
    );
  }

  ps(request: EnvelopedRequest): Promise<EnvelopedResponse> {
    return this.query('ps', request, (query) => this.pm.ps(query));
  }

  kill(request: EnvelopedRequest, answerByMs: number): Promise<EnvelopedResponse> {
    return this.query('kill', request, (query) => this.pm.kill(query, answerByMs));
  }

  flush(request: EnvelopedRequest, answerByMs: number): Promise<EnvelopedResponse> {
    return this.query('flush', request, (query) => this.pm.flush(query, answerByMs));
  }

  restart(request: EnvelopedRequest, answerByMs: number): Promise<EnvelopedResponse> {
    const restart = async (query: ProcessQuery) =>
      answered(only(await this.pm.restart({ ...query, token: request.token }, answerByMs)));
    return this.call('restart', request, 'ProcessQuery', 'ProcessInstance', restart);
  }

  /**
   * The era's terminate carries a ProcessQuery that drunc's process managers ignore (they end
   * everything they run): kpm's terminate ends every process of the caller's sessions.
   */
  terminate(request: EnvelopedRequest, answerByMs: number): Promise<EnvelopedResponse> {
    return this.query('terminate', request, () =>
      this.pm.terminate({ token: request.token }, answerByMs),
    );
  }

  /** One Response per log line (drunc's `LogLine`), or one refusal; never rejects. */
  async logs(request: EnvelopedRequest): Promise<EnvelopedResponse[]> {
    try {
      const unpacked = this.wire.unpack<Omit<LogRequest, 'token'>>(request.data, 'LogRequest');
      if (!unpacked.ok) return [this.answers.badData(request.token, `logs: ${unpacked.reason}`)];
      const got = await this.pm.logs({ ...unpacked.value, token: request.token });
      if (got.flag !== ResponseFlag.EXECUTED_SUCCESSFULLY) {
        const text = got.lines.join('\n');
        return [this.answers.badData(request.token, `logs refused: ${text}`)];
      }
      return got.lines.map((line) => this.answers.success('LogLine', { uuid: got.uuid, line }));
    } catch (error) {
      return [this.answers.error('logs', request.token, error)];
    }
  }

  private query(
    rpc: string,
    request: EnvelopedRequest,
    work: (query: ProcessQuery) => Promise<ProcessInstanceList>,
  ): Promise<EnvelopedResponse> {
    return this.call(rpc, request, 'ProcessQuery', 'ProcessInstanceList', async (query) => {
      const list = await work({ ...(query as ProcessQuery), token: request.token });
      return answered({ values: list.values }, list.flag);
    });
  }

  /** Unpack, run the shared mapping, pack: a refusal or failure becomes the era's flag. */
  private async call<In>(
    rpc: string,
    request: EnvelopedRequest,
    takes: EnvelopedType | null,
    returns: EnvelopedType,
    work: (payload: In) => Promise<Answered>,
  ): Promise<EnvelopedResponse> {
    let payload = undefined as In;
    if (takes) {
      const unpacked = this.wire.unpack<In>(request.data, takes);
      if (!unpacked.ok) return this.answers.badData(request.token, `${rpc}: ${unpacked.reason}`);
      payload = unpacked.value;
    }
    try {
      const { payload: out, flag } = await work(payload);
      return this.answers.success(returns, out, flag);
    } catch (error) {
      return this.answers.error(rpc, request.token, error);
    }
  }
}

/** What a call answers: the payload, and the flag (a kill kpm finished only in part: FAILED). */
interface Answered {
  payload: object;
  flag: ResponseFlag;
}

function answered(payload: object, flag = ResponseFlag.EXECUTED_SUCCESSFULLY): Answered {
  return { payload, flag };
}

/** boot and restart: the era answers the one instance. */
function only(list: ProcessInstanceList): object {
  const [instance] = list.values;
  if (!instance) throw new Error('kpm answered no process');
  return instance;
}
