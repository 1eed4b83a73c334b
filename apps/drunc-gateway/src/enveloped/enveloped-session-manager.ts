/**
 * drunc's SessionManager as drunc's web UI asks it (its Sessions page): `list_all_sessions` is
 * kpm's real sessions with the user each belongs to, `list_all_configs` the configurations the
 * gateway was given (`gateway.configurations`), `describe` the service. drunc's own session
 * manager answers dummies; start_session, stop_session and load_config are not implemented there
 * either, and answer the era's NOT_EXECUTED_NOT_IMPLEMENTED flag.
 */
import type { DruncProcessManager } from '../drunc-process-manager';
import { EnvelopedAnswers } from './enveloped-answer';
import type { EnvelopedRequest, EnvelopedResponse, EnvelopedWire } from './enveloped-wire';

export interface ConfigKey {
  file: string;
  session_id: string;
}

/** `<file>:<session id>`, split at the last colon (a file path may hold colons). */
export function configKeyOf(entry: string): ConfigKey {
  const at = entry.lastIndexOf(':');
  return { file: entry.slice(0, at), session_id: entry.slice(at + 1) };
}

const COMMANDS = [
  {
    name: 'describe',
    data_type: ['None'],
    help: 'Describe self (return a list of commands, the type of endpoint, the name and session).',
    return_type: 'request_response_pb2.Description',
  },
  {
    name: 'list_all_sessions',
    data_type: ['None'],
    help: "List all active sessions: kpm's sessions and the user each belongs to.",
    return_type: 'session_manager_pb2.AllActiveSessions',
  },
  {
    name: 'list_all_configs',
    data_type: ['None'],
    help: 'List all available configurations.',
    return_type: 'session_manager_pb2.AllConfigKeys',
  },
];

export const NOT_IMPLEMENTED_SESSION_RPCS = ['start_session', 'stop_session', 'load_config'];

export class EnvelopedSessionManager {
  private readonly answers: EnvelopedAnswers;

  constructor(
    private readonly pm: DruncProcessManager,
    wire: EnvelopedWire,
    private readonly name: string,
    private readonly configurations: readonly string[],
  ) {
    this.answers = new EnvelopedAnswers(wire, name);
  }

  describe(): EnvelopedResponse {
    return this.answers.success('Description', {
      type: 'session_manager',
      name: this.name,
      session: this.name,
      commands: COMMANDS,
    });
  }

  async list_all_sessions(request: EnvelopedRequest): Promise<EnvelopedResponse> {
    try {
      const sessions = await this.pm.sessions('list_all_sessions');
      return this.answers.success('AllActiveSessions', { active_sessions: sessions });
    } catch (error) {
      return this.answers.error('list_all_sessions', request.token, error);
    }
  }

  list_all_configs(): EnvelopedResponse {
    return this.answers.success('AllConfigKeys', {
      config_keys: this.configurations.map(configKeyOf),
    });
  }

  notImplemented(rpc: string, request: EnvelopedRequest): EnvelopedResponse {
    return this.answers.notImplemented(rpc, request.token);
  }
}
