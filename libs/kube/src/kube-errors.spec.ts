import { ApiException } from '@kubernetes/client-node';
import { classifyKubeError, failureOf, KubeCallFailed, type KubeFailure } from './kube-errors';

const apiError = (code: number, reason: string) =>
  new ApiException(
    code,
    'failed',
    JSON.stringify({ kind: 'Status', reason, message: `${reason} happened` }),
    {},
  );
const networkError = (code: string) => Object.assign(new Error(`connect ${code}`), { code });
const aborted = () =>
  Object.assign(new Error('The operation was aborted.'), { name: 'AbortError' });

describe('failureOf', () => {
  it.each<[string, unknown, Partial<KubeFailure>]>([
    ['404', apiError(404, 'NotFound'), { kind: 'not-found', status: 404, reason: 'NotFound' }],
    ['409', apiError(409, 'AlreadyExists'), { kind: 'conflict', status: 409 }],
    ['410', apiError(410, 'Expired'), { kind: 'gone', status: 410 }],
    ['400', apiError(400, 'BadRequest'), { kind: 'invalid', status: 400 }],
    [
      '422',
      apiError(422, 'Invalid'),
      { kind: 'invalid', reason: 'Invalid', message: 'Invalid happened' },
    ],
    ['401', apiError(401, 'Unauthorized'), { kind: 'forbidden', status: 401 }],
    ['403', apiError(403, 'Forbidden'), { kind: 'forbidden', status: 403 }],
    [
      "403 while the namespace's default ServiceAccount is not yet created",
      new ApiException(
        403,
        'failed',
        JSON.stringify({
          kind: 'Status',
          reason: 'Forbidden',
          message:
            'pods "ru-01" is forbidden: error looking up service account run-7/default: serviceaccount "default" not found',
        }),
        {},
      ),
      { kind: 'retryable', status: 403, reason: 'Forbidden' },
    ],
    ['403 naming another lookup', apiError(403, 'Forbidden'), { kind: 'forbidden', status: 403 }],
    ['429', apiError(429, 'TooManyRequests'), { kind: 'retryable', status: 429 }],
    ['500', apiError(500, 'InternalError'), { kind: 'retryable', status: 500 }],
    ['503', apiError(503, 'ServiceUnavailable'), { kind: 'retryable', status: 503 }],
    ['another status', apiError(418, 'Teapot'), { kind: 'other', status: 418 }],
    [
      'a body that is not JSON',
      new ApiException(500, 'failed', 'oops', {}),
      { kind: 'retryable', reason: 'Error' },
    ],
    [
      'a refused connection',
      networkError('ECONNREFUSED'),
      { kind: 'retryable', reason: 'ECONNREFUSED' },
    ],
    ['a reset connection', networkError('ECONNRESET'), { kind: 'retryable', reason: 'ECONNRESET' }],
    ['a failed DNS lookup', networkError('EAI_AGAIN'), { kind: 'retryable' }],
    ['an unknown network code', networkError('EWHATEVER'), { kind: 'other', reason: 'EWHATEVER' }],
    ['fetch failed', new TypeError('fetch failed'), { kind: 'retryable' }],
    ['a call aborted by its request timeout', aborted(), { kind: 'retryable', reason: 'Timeout' }],
    ['a plain error', new Error('boom'), { kind: 'other', reason: 'Error', message: 'boom' }],
    ['a thrown string', 'boom', { kind: 'other', reason: 'Unknown', message: 'boom' }],
    [
      'a KubeCallFailed (its classification as it is)',
      new KubeCallFailed({ kind: 'conflict', status: 409, reason: 'Conflict', message: 'm' }, 3),
      { kind: 'conflict', status: 409, reason: 'Conflict', message: 'm' },
    ],
  ])('classifies %s', (_, error, expected) => {
    expect(failureOf(error)).toMatchObject(expected);
  });

  it('reads a raw error as classifyKubeError does', () => {
    const error = apiError(404, 'NotFound');
    expect(failureOf(error)).toEqual(classifyKubeError(error));
  });
});
