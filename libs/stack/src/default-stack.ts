import { LocalStack } from './local-stack';

/** The stack `kpm stack up` and the integration tests use. */
export function defaultStack(): LocalStack {
  return new LocalStack([]);
}
