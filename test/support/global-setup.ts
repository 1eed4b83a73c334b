// globalSetup runs outside jest's module mapper: resolve @kpm/* through tsconfig's paths.
import 'tsconfig-paths/register';
import { defaultStack, readStackEnv } from '../../libs/stack/src';
import { nameTestRun } from './test-topics';

/**
 * Integration tests run against the real local stack; bring it up once (idempotent, fast when
 * warm). KPM_STACK_OTEL=1 (scripts/test-integration.sh sets it) adds the OpenTelemetry Collector,
 * whose KPM_OTLP_ENDPOINT and KPM_OTEL_SPANS the suites then see. KPM_TEST_STACK=reuse takes the
 * stack that runs as it is, from its `stack.env` (under KPM_HOME), and starts or restarts
 * nothing: for checkouts that share one running stack.
 */
export default async function globalSetup(): Promise<void> {
  nameTestRun();
  if (process.env.KPM_TEST_STACK === 'reuse') {
    const env = readStackEnv();
    if (!env.KPM_KAFKA_BROKERS)
      throw new Error('KPM_TEST_STACK=reuse, but no stack.env names a broker: run kpm stack up');
    if (process.env.KPM_STACK_OTEL === '1' && !env.KPM_OTLP_ENDPOINT)
      process.stdout.write(
        '[stack] KPM_STACK_OTEL=1, but the reused stack runs no collector (kpm stack up --otel adds it)\n',
      );
    Object.assign(process.env, env);
    return;
  }
  const env = await defaultStack().up((message) => process.stdout.write(`[stack] ${message}\n`));
  Object.assign(process.env, env);
}
