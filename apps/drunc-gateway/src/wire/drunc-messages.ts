/**
 * drunc's messages as @grpc/proto-loader hands them to the handlers and takes them back
 * (LOADER_OPTIONS: snake_case, enums as numbers, defaults filled, Any as {type_url, value}).
 */

export enum ResponseFlag {
  EXECUTED_SUCCESSFULLY = 0,
  FAILED = 1,
  NOT_EXECUTED_NOT_IMPLEMENTED = 2,
  NOT_EXECUTED_NOT_IN_CONTROL = 3,
  NOT_EXECUTED_NOT_AUTHORISED = 4,
  NOT_EXECUTED_NODE_IN_ERROR = 5,
  DRUNC_EXCEPTION_THROWN = 6,
  UNHANDLED_EXCEPTION_THROWN = 7,
  NOT_EXECUTED_BAD_REQUEST_FORMAT = 8,
  NOT_EXECUTED_NOT_READY = 9,
}

export enum StatusCode {
  RUNNING = 0,
  DEAD = 1,
}

export interface Token {
  token: string;
  user_name: string;
}

export interface AnyMessage {
  type_url: string;
  value: Buffer;
}

export interface Request {
  token?: Token | null;
  data?: AnyMessage | null;
}

export interface ProcessUUID {
  uuid: string;
}

export interface ProcessMetadata {
  uuid?: ProcessUUID | null;
  user: string;
  session?: string;
  name: string;
  hostname: string;
  tree_id?: string;
}

export interface ExecAndArgs {
  exec: string;
  args: string[];
}

export interface ProcessDescription {
  metadata?: ProcessMetadata | null;
  env: Record<string, string>;
  executable_and_arguments: ExecAndArgs[];
  process_execution_directory: string;
  process_logs_path: string;
}

export interface ProcessRestriction {
  allowed_hosts: string[];
  allowed_host_types: string[];
  data_mount?: string;
}

export interface BootRequest {
  token?: Token | null;
  process_description?: ProcessDescription | null;
  process_restriction?: ProcessRestriction | null;
}

export interface ProcessQuery {
  token?: Token | null;
  uuids: ProcessUUID[];
  names: string[];
  user: string;
  session: string;
}

export interface LogRequest {
  token?: Token | null;
  query?: ProcessQuery | null;
  how_far: number;
}

export interface ProcessInstance {
  process_description: ProcessDescription;
  process_restriction: ProcessRestriction;
  status_code: StatusCode;
  return_code?: number;
  uuid: ProcessUUID;
}

export interface ProcessInstanceList {
  name: string;
  token?: Token | null;
  values: ProcessInstance[];
  flag: ResponseFlag;
}

export interface LogLines {
  name: string;
  token?: Token | null;
  uuid?: ProcessUUID | null;
  lines: string[];
  flag: ResponseFlag;
}

export interface CommandDescription {
  name: string;
  data_type: string[];
  help: string;
  return_type: string;
}

export interface Description {
  token?: Token | null;
  type: string;
  name: string;
  endpoint: string;
  info?: string;
  session?: string;
  commands: CommandDescription[];
  /** Where drunc's broadcasts are: Any(KafkaBroadcastHandlerConfiguration). */
  broadcast?: { type_url: string; value: Uint8Array };
  flag: ResponseFlag;
}

/** druncschema's common.proto: what log_on_server and echo_on_server take. */
export interface LogOnServerRequest {
  token?: Token | null;
  text: string;
  severity: string;
  target: string;
  execute_along_path: boolean;
  execute_on_all_subsequent_children_in_path: boolean;
}

export interface LogOnServerResponse {
  token?: Token | null;
  name: string;
  flag: ResponseFlag;
  children: LogOnServerResponse[];
}

/** send_msg's answer: no fields kpm knows of (proto/druncschema/generic.proto). */
export type OutcomeStatus = Record<string, never>;
