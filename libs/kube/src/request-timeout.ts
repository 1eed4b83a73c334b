import type { RequestContext, ResponseContext } from '@kubernetes/client-node';

/** client-node's PromiseMiddleware (not exported from the package root). */
interface RequestMiddleware {
  pre(context: RequestContext): Promise<RequestContext>;
  post(context: ResponseContext): Promise<ResponseContext>;
}

/**
 * Bounds every API call (not watches, which have their own inactivity watchdog): a request
 * stuck on a half-dead keep-alive connection is aborted instead of hanging its caller forever.
 */
export function requestTimeout(timeoutMs: number): RequestMiddleware {
  return {
    pre: (context: RequestContext) => {
      context.setSignal(AbortSignal.timeout(timeoutMs));
      return Promise.resolve(context);
    },
    post: (response: ResponseContext) => Promise.resolve(response),
  };
}
