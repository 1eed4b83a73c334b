/**
 * describe: kpm, in drunc's Description — type `process_manager`, drunc's eight commands with
 * drunc's own data and return types, flag EXECUTED_SUCCESSFULLY; `broadcast` where drunc's
 * protobuf broadcasts can be followed, when the operator says so (broadcast-listing.ts).
 */
import { ResponseFlag, type CommandDescription, type Description } from './wire/drunc-messages';

const PIL = 'process_manager_pb2.ProcessInstanceList';
const QUERY = 'process_manager_pb2.ProcessQuery';

export const DRUNC_COMMANDS: readonly CommandDescription[] = [
  command(
    'describe',
    ['None'],
    'Describe self (return a list of commands, the type of endpoint, the name and session).',
    'description_pb2.Description',
  ),
  command(
    'kill',
    [QUERY],
    'Kill listed process from the process query input (can be multiple).',
    PIL,
  ),
  command(
    'restart',
    [QUERY],
    'Restart the process from the process query (which must correspond to one process).',
    PIL,
  ),
  command('boot', ['process_manager_pb2.BootRequest'], 'Start a process.', PIL),
  command('terminate', ['None'], "Kill every process of the calling user's sessions.", PIL),
  command('flush', [QUERY], 'Remove the processes from the list that are dead', PIL),
  command(
    'logs',
    ['process_manager_pb2.LogRequest'],
    'Returns the logs from the process ( must correspond to one process).',
    'process_manager_pb2.LogLines',
  ),
  command(
    'ps',
    [QUERY],
    'Get the status of the listed process from the process query input (can be multiple).',
    PIL,
  ),
];

function command(name: string, data_type: string[], help: string, return_type: string) {
  return { name, data_type, help, return_type };
}

export function describeKpm(identity: {
  name: string;
  endpoint: string;
  broadcast?: { type_url: string; value: Uint8Array };
}): Description {
  return {
    ...(identity.broadcast ? { broadcast: identity.broadcast } : {}),
    type: 'process_manager',
    name: identity.name,
    endpoint: identity.endpoint,
    session: 'no_session',
    commands: DRUNC_COMMANDS.map((c) => ({ ...c, data_type: [...c.data_type] })),
    flag: ResponseFlag.EXECUTED_SUCCESSFULLY,
  };
}
