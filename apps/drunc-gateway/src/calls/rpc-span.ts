/**
 * A drunc RPC's span (`<service>/<method>`, OpenTelemetry's RPC conventions) when tracing is on.
 * drunc's clients send no trace context, so the call is its trace's root: the kpm commands it
 * sends carry its `traceparent`, and the services' spans of those commands nest inside it.
 */
import { inSpan, SpanKind } from '@kpm/tracing';

export function inRpcSpan<T>(service: string, method: string, work: () => Promise<T>): Promise<T> {
  return inSpan(
    `${service}/${method}`,
    {
      kind: SpanKind.SERVER,
      attributes: { 'rpc.system': 'grpc', 'rpc.service': service, 'rpc.method': method },
    },
    work,
  );
}
