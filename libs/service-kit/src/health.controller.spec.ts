import { HealthController } from './health.controller';
import { Readiness } from './readiness';

/** An express Response that keeps what was sent. */
function fakeResponse() {
  const sent: { status?: number; body?: unknown } = {};
  const response = {
    status(code: number) {
      sent.status = code;
      return this;
    },
    json(body: unknown) {
      sent.body = body;
      return this;
    },
  };
  return { response: response as never, sent };
}

function respond(controller: HealthController) {
  const { response, sent } = fakeResponse();
  controller.readyz(response);
  return sent;
}

describe('HealthController', () => {
  it('answers liveness whatever the parts say while none has a liveness deadline', () => {
    const readiness = new Readiness();
    readiness.expect('kafka-consumer');
    const { response, sent } = fakeResponse();
    new HealthController(readiness).healthz(response);
    expect(sent).toEqual({ status: 200, body: { status: 'ok' } });
  });

  it.each<{ parts: Record<string, boolean>; status: number }>([
    { parts: { 'kafka-consumer': true, 'state-view': true }, status: 200 },
    { parts: { 'kafka-consumer': true, 'state-view': false }, status: 503 },
    { parts: { 'kafka-consumer': false }, status: 503 },
  ])('readyz is $status for $parts, and lists the parts', ({ parts, status }) => {
    const readiness = new Readiness();
    for (const [part, ready] of Object.entries(parts)) readiness.set(part, ready, `${part} says`);
    const sent = respond(new HealthController(readiness));
    expect(sent.status).toBe(status);
    expect(sent.body).toEqual({
      ready: status === 200,
      parts: Object.fromEntries(
        Object.entries(parts).map(([part, ready]) => [part, { ready, detail: `${part} says` }]),
      ),
    });
  });
});
