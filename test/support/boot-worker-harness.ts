import { eventually } from '@kpm/common';
import { randomBytes } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import {
  CoreV1Api,
  KubeConfig,
  PatchStrategy,
  Watch,
  setHeaderOptions,
  type V1Pod,
} from '@kubernetes/client-node';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { topicName, type CloudEvent } from '@kpm/contracts';
import type { KpmSettings } from '@kpm/config';
import { KpmLabels } from '@kpm/kube';
import { runService } from '@kpm/service-kit';
import { BootWorkerModule } from '../../apps/boot-worker/src/boot-worker.module';
import { FinalizerJanitor } from './finalizer-janitor';
import { ServiceProcess } from './service-process';
import { testSettings } from './services';
import { stackEnv, uniqueTopicPrefix } from './stack-env';
import { TopicProbe } from './topic-probe';

type Data = Record<string, unknown>;

export interface PodRecorder {
  deleted: string[];
  exitCodes: Map<string, number>;
  stop: () => void;
}

/**
 * A boot-worker started in-process on the real stack with a topic prefix and a label domain of
 * its own (no other suite's watcher or janitor sees its pods), a producer for commands, a probe
 * on its facts, and a finalizer janitor standing in for the watcher.
 */
export class BootWorkerHarness {
  readonly kubeconfig = new KubeConfig();
  readonly core: CoreV1Api;
  readonly labels: KpmLabels;
  readonly sessions = new Set<string>();
  app?: INestApplication;
  child?: ServiceProcess;
  childEnv: Record<string, string> = {};
  probe!: TopicProbe;
  janitor?: FinalizerJanitor;
  private producer!: Producer;
  private readonly suffix = randomBytes(3).toString('hex');

  private constructor(
    readonly label: string,
    readonly prefix: string,
    readonly domain: string,
    readonly settings: KpmSettings,
  ) {
    const path = stackEnv().kubeconfig;
    if (path) this.kubeconfig.loadFromFile(path);
    else this.kubeconfig.loadFromDefault();
    this.core = this.kubeconfig.makeApiClient(CoreV1Api);
    this.labels = new KpmLabels(domain);
  }

  /**
   * Starts the suite's boot-worker: in-process, or (`child`) as a child process the way
   * `kpm services up` runs it, so a test can SIGKILL it mid-command.
   */
  static async start(
    label: string,
    env: Record<string, string> = {},
    options: { child?: boolean; janitor?: boolean } = {},
  ): Promise<BootWorkerHarness> {
    const prefix = uniqueTopicPrefix(label);
    const domain = `${label}-${randomBytes(3).toString('hex')}.test.daq`;
    const settings = testSettings('boot-worker', prefix, { KPM_LABEL_DOMAIN: domain, ...env });
    const harness = new BootWorkerHarness(label, prefix, domain, settings);
    // Without the janitor a suite runs the real watcher on the same label domain.
    if (options.janitor !== false) {
      harness.janitor = new FinalizerJanitor(harness.kubeconfig, domain).start();
    }
    if (options.child) {
      const { brokers, kubeconfig } = stackEnv();
      harness.childEnv = {
        KPM_KAFKA_BROKERS: brokers.join(','),
        KPM_TOPIC_PREFIX: prefix,
        KPM_LABEL_DOMAIN: domain,
        KPM_INSTANCE: `${label}-child`,
        ...(kubeconfig ? { KUBECONFIG: kubeconfig } : {}),
        ...env,
      };
      harness.child = new ServiceProcess('boot-worker', harness.childEnv);
      await harness.child.start();
    } else {
      harness.app = await runService(
        BootWorkerModule.register(settings),
        settings,
        BootWorkerModule.consumer(settings),
      );
    }
    harness.probe = await new TopicProbe(stackEnv().brokers, [
      topicName('process-events', prefix),
      topicName('broadcast', prefix),
    ]).start();
    harness.producer = new Kafka({
      brokers: stackEnv().brokers,
      logLevel: logLevel.NOTHING,
    }).producer();
    await harness.producer.connect();
    return harness;
  }

  /** A session name of this suite (a namespace, released and deleted by `close`). */
  session(name: string): string {
    const session = `${this.label}-${this.suffix}-${name}`;
    this.sessions.add(session);
    return session;
  }

  /** Sends a command as any client writes it: raw CloudEvent JSON keyed by the session. */
  async send(id: string, type: string, data: unknown, subject?: string): Promise<void> {
    const session = subject ?? sessionOf(data);
    await this.sendRaw(
      JSON.stringify({ specversion: '1.0', id, source: '/kpm/test', type, subject: session, data }),
      session ?? null,
    );
  }

  async sendRaw(value: string | Buffer, key: string | null): Promise<void> {
    await this.producer.send({
      topic: topicName('commands', this.prefix),
      messages: [{ key, value, headers: { 'content-type': 'application/cloudevents+json' } }],
    });
  }

  /** The first fact of `type` for the command (and matching `where`), waiting for it. */
  async fact(
    type: string,
    commandId: string,
    where: (data: Data) => boolean = () => true,
    timeoutMs = 60_000,
  ): Promise<CloudEvent<Data>> {
    const record = await this.probe.waitFor(
      (r) => r.event?.type === type && r.event.data.commandId === commandId && where(r.event.data),
      timeoutMs,
    );
    return record.event!;
  }

  /** Every fact of `type` the command caused so far. */
  facts(type: string, commandId: string): CloudEvent<Data>[] {
    return this.probe.events(type).filter((e) => e.data.commandId === commandId);
  }

  /** Waits until the command has `count` facts of `type`. */
  async factCount(
    type: string,
    commandId: string,
    count: number,
    timeoutMs = 120_000,
  ): Promise<CloudEvent<Data>[]> {
    await this.waitUntil(() => this.facts(type, commandId).length >= count, timeoutMs);
    return this.facts(type, commandId);
  }

  /**
   * Waits until `condition` holds over the records seen. The probe tries its predicate on every
   * record it holds whenever one arrives; asking only at the newest record keeps a wait over
   * thousands of facts linear instead of cubic (it shares the CPU with the boot-worker under test).
   */
  async waitUntil(condition: () => boolean, timeoutMs = 120_000): Promise<void> {
    if (condition()) return;
    const { records } = this.probe;
    await this.probe.waitFor((r) => r === records[records.length - 1] && condition(), timeoutMs);
  }

  /**
   * Waits until every pod of the session that is not being deleted runs (pods of killed
   * processes may linger until their termination is recorded). A process is RUNNING for kpm
   * once its pod exists (docs/design.md §11.10); a kill before the node started it ends it with
   * no exit code (-1), so a test that expects a signal's exit code waits for this first.
   */
  async podsRunning(session: string): Promise<V1Pod[]> {
    return this.until(
      async () => (await this.pods(session)).filter((p) => !p.metadata?.deletionTimestamp),
      (pods) => pods.length > 0 && pods.every((p) => p.status?.phase === 'Running'),
    );
  }

  async pods(session: string): Promise<V1Pod[]> {
    const list = await this.core.listNamespacedPod({
      namespace: session,
      labelSelector: this.labels.creatorSelector(),
    });
    return list.items;
  }

  /**
   * Records from a watch, in order, when each pod of the session first carries a
   * deletionTimestamp (the order the boot-worker deleted them) and the exit code it ended with.
   */
  async recordPods(session: string): Promise<PodRecorder> {
    const deleted: string[] = [];
    const exitCodes = new Map<string, number>();
    const list = await this.core.listNamespacedPod({ namespace: session });
    const controller = await new Watch(this.kubeconfig).watch(
      `/api/v1/namespaces/${session}/pods`,
      { resourceVersion: list.metadata?.resourceVersion },
      (_type: string, pod: V1Pod) => {
        const name = pod.metadata?.name ?? '';
        if (pod.metadata?.deletionTimestamp && !deleted.includes(name)) deleted.push(name);
        const code = pod.status?.containerStatuses?.[0]?.state?.terminated?.exitCode;
        if (code !== undefined && !exitCodes.has(name)) exitCodes.set(name, code);
      },
      () => undefined,
    );
    return { deleted, exitCodes, stop: () => controller.abort() };
  }

  /** Polls the API (with a deadline) until `done` holds. */
  async until<T>(
    read: () => Promise<T>,
    done: (value: T) => boolean,
    timeoutMs = 60_000,
  ): Promise<T> {
    const found = await eventually(
      async () => {
        const value = await read();
        if (done(value)) return { value };
        throw new Error(`last: ${JSON.stringify(value)?.slice(0, 2000)}`);
      },
      { timeoutMs, everyMs: 250 },
    );
    return found.value;
  }

  async namespaceExists(name: string): Promise<boolean> {
    try {
      await this.core.readNamespace({ name });
      return true;
    } catch (error) {
      if ((error as { code?: number }).code === 404) return false;
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.app?.close();
    await this.child?.kill('SIGTERM');
    await this.probe?.stop();
    await this.producer?.disconnect();
    await this.janitor?.stop();
    for (const session of this.sessions) {
      const pods = await this.core.listNamespacedPod({ namespace: session }).catch(() => undefined);
      await Promise.all(
        (pods?.items ?? []).map((pod) =>
          this.core
            .patchNamespacedPod(
              {
                namespace: session,
                name: pod.metadata!.name!,
                body: [{ op: 'remove', path: '/metadata/finalizers' }],
              },
              setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
            )
            .catch(() => undefined),
        ),
      );
      await this.core.deleteNamespace({ name: session }).catch(() => undefined);
    }
  }
}

function sessionOf(data: unknown): string | undefined {
  const d = data as { session?: string; query?: { session?: string } };
  return d?.session ?? d?.query?.session;
}
