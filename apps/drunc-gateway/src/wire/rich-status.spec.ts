import { status } from '@grpc/grpc-js';
import { decodeStatusDetails, serverError } from './rich-status';

it('puts a google.rpc.Status with ErrorInfo and BadRequest in grpc-status-details-bin', () => {
  const error = serverError({
    code: status.INVALID_ARGUMENT,
    message: 'kill refused: names[0]: is not RE2',
    reason: 'NOT_EXECUTED_BAD_REQUEST_FORMAT',
    domain: 'ProcessManager.kill',
    metadata: { field: 'names[0]' },
    violations: [{ field: 'names[0]', description: 'is not RE2' }],
  });
  expect([error.code, error.details]).toEqual([
    status.INVALID_ARGUMENT,
    'kill refused: names[0]: is not RE2',
  ]);
  const [bytes] = error.metadata!.get('grpc-status-details-bin') as Buffer[];
  expect(decodeStatusDetails(bytes)).toEqual({
    code: status.INVALID_ARGUMENT,
    message: 'kill refused: names[0]: is not RE2',
    errorInfo: {
      reason: 'NOT_EXECUTED_BAD_REQUEST_FORMAT',
      domain: 'ProcessManager.kill',
      metadata: { message: 'kill refused: names[0]: is not RE2', field: 'names[0]' },
    },
    violations: [{ field: 'names[0]', description: 'is not RE2' }],
  });
});
