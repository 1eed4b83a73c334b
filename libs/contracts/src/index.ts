/**
 * @kpm/contracts: the messages every kpm service and client exchanges over Kafka
 * (docs/design.md §2–§6): topics, CloudEvent envelope, commands, facts, outcomes, rules and ids.
 */
import 'reflect-metadata';

export * from './binary-mode';
export * from './build';
export * from './command-name';
export * from './commands';
export * from './envelope';
export * from './event-types';
export * from './examples';
export * from './facts';
export * from './ids';
export * from './outcomes';
export * from './parse';
export * from './registry';
export * from './roles';
export * from './topics';
export * from './feed-topics';
export * from './trace-context';
export {
  compileNamePattern,
  namePatternError,
  MAX_REGEX_LENGTH,
  type NamePattern,
} from './validation/name-pattern';
export {
  dataMountReason,
  EXECUTION_DIRECTORY_MOUNTS,
  logFileReason,
  unsafePathReason,
} from './validation/rules';
export {
  boundedText,
  ENVELOPE_LIMITS,
  MAX_FIELD_ERRORS,
  MAX_ERROR_MESSAGE_LENGTH,
} from './validation/bounded-text';
export {
  boundedFieldErrors,
  MORE_ERRORS_PATH,
  validateData,
  validateFrozen,
  toFieldErrors,
  type FieldError,
  type ContractClass,
  type Validated,
} from './validation/validate';
