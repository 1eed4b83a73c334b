/**
 * kpm as it is deployed, for the gateway's latency bench: the three services and the drunc
 * gateway each its own process, compiled, with their Deployments' V8 flags (KpmServices), under a
 * topic prefix and label domain of the run's own, and the run's records timed on Kafka
 * (FactClock). The tests' harness runs the services in the test's own process instead, which
 * is right for a test and wrong for a measure: there one event loop serves all three.
 */
import { LOCAL_SERVICE_SETTINGS, ensureServiceBuilt } from '@kpm/stack';
import { SERVICE_V8_FLAGS } from '@kpm/service-kit/v8-flags';
import { freePort, ServiceProcess } from '../../test/support/service-process';
import type { PodLab } from '../../test/support/kpm-pods';
import { stackEnv } from '../../test/support/stack-env';
import { openBenchRun, releaseSessions } from '../e2e/bench-env';
import type { FactClock } from '../e2e/fact-clock';
import { KpmServices } from '../e2e/kpm-services';

export class DeployedKpm {
  private readonly sessions: string[] = [];

  private constructor(
    readonly runId: string,
    readonly clock: FactClock,
    /** `grpc://127.0.0.1:<port>`, as drunc's shells take it. */
    readonly address: string,
    private readonly lab: PodLab,
    private readonly services: KpmServices,
    private readonly gateway: ServiceProcess,
  ) {}

  static async start(log: (message: string) => void): Promise<DeployedKpm> {
    const { runId, lab, prefix, clock } = await openBenchRun('gwbench', log);
    const services = new KpmServices(prefix, lab.domain, { ...LOCAL_SERVICE_SETTINGS });
    await services.start(log);
    const port = await freePort();
    const { brokers, kubeconfig, topicReplication } = stackEnv();
    const gateway = new ServiceProcess(
      'drunc-gateway',
      {
        KPM_KAFKA_BROKERS: brokers.join(','),
        ...topicReplication,
        KPM_TOPIC_PREFIX: prefix,
        KPM_INSTANCE: 'drunc-gateway-bench',
        KPM_STATE_URL: services.url('state'),
        KPM_DRUNC_GATEWAY_PORT: String(port),
        ...(kubeconfig ? { KUBECONFIG: kubeconfig } : {}),
      },
      await ensureServiceBuilt('drunc-gateway', log),
      SERVICE_V8_FLAGS,
    );
    await gateway.start(180_000);
    return new DeployedKpm(runId, clock, `grpc://127.0.0.1:${port}`, lab, services, gateway);
  }

  /** A session of this run: its namespace is removed by `close`. */
  session(name: string): string {
    const session = `${this.runId}-${name}`;
    this.sessions.push(session);
    return session;
  }

  async close(): Promise<void> {
    await releaseSessions(this.lab, this.sessions);
    await this.gateway.kill('SIGTERM');
    await this.services.stop();
    await this.clock.stop();
    await this.lab.close();
  }
}
