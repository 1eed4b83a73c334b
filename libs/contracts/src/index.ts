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
export * from './trace-context';
export { unsafeRegexReason, MAX_REGEX_LENGTH, MAX_REPETITIONS } from './validation/safe-regex';
export { unsafePathReason } from './validation/rules';
export {
  validateData,
  toFieldErrors,
  type FieldError,
  type ContractClass,
  type Validated,
} from './validation/validate';
