/**
 * `node --expose-gc --require tsx/cjs bench/memory.ts [n]`: heap bytes each live row costs in the
 * state service's shard and in the watcher's tracker, measured as the services hold them (facts
 * parsed from their records, pods as the API server returns them). Heap only: the process's
 * RSS adds the runtime and the Kafka client, which do not grow with rows.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { DEFAULT_FATAL_WAITING_REASONS } from '@kpm/config';
import { loadSettings } from '@kpm/config';
import { encodeEvent, parseRecord, topicName, type KpmEvent } from '@kpm/contracts';
import type { EventProducer, InboundRecord, KafkaClient } from '@kpm/kafka';
import { KpmLabels } from '@kpm/kube';
import { Broadcaster, Readiness } from '@kpm/service-kit';
import { DashboardFeed, KEPT_FOR_MS } from '../apps/state/src/dashboard/dashboard-feed';
import type { Effect } from '../apps/state/src/domain/effects';
import { StateShard } from '../apps/state/src/domain/state-shard';
import { EffectRecords } from '../apps/state/src/kafka/effect-records';
import { StateView } from '../apps/state/src/view/state-view';
import {
  bootAccepted,
  booted,
  killAccepted,
  terminated,
  timeOf,
} from '../apps/state/src/domain/__fixtures__/facts';
import { TerminationTracker } from '../apps/watcher/src/termination-tracker';

function heapAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** Bytes per row that `build` keeps reachable. */
function perRow(n: number, build: (n: number) => unknown): number {
  const before = heapAfterGc();
  const kept = build(n);
  const after = heapAfterGc();
  if (!kept) throw new Error('nothing kept');
  return (after - before) / n;
}

const reparse = (event: KpmEvent): KpmEvent => {
  const parsed = parseRecord(encodeEvent(event).value);
  if (!parsed.ok) throw new Error(`fixture does not parse: ${JSON.stringify(parsed)}`);
  return parsed.event;
};

/** A session's boot then its kill, every fact parsed from its record as the service reads it. */
function stateShard(n: number, dead: boolean, effects: Effect[] = []): StateShard {
  const shard = new StateShard(() => 0);
  const names = Array.from({ length: n }, (_, i) => `app-${i}`);
  const facts = [bootAccepted('boot-1', names), ...names.map((name) => booted('boot-1', name))];
  if (dead) {
    facts.push(killAccepted('kill-1', [names]), ...names.map((name) => terminated(name, 143)));
  }
  for (const fact of facts) {
    const event = reparse(fact);
    effects.push(...shard.apply(event, timeOf(event)));
  }
  return shard;
}

/**
 * One replica that owns the session: its shard, and its view and dashboard fed with the records
 * the shard wrote (the table, the completions) and the watcher's terminations.
 */
function stateReplica(n: number, afterReplayWindow = false): unknown[] {
  const settings = loadSettings('state', process.env);
  const effects: Effect[] = [];
  const shard = stateShard(n, true, effects);
  const broadcaster = new Broadcaster({} as EventProducer, settings);
  const records = new EffectRecords(settings.kafka.topicPrefix, '/kpm/bench', broadcaster);
  const view = new StateView(settings, {} as KafkaClient, new Readiness());
  // As the coordinator wires them: the view's rows of owned sessions share the shard's parts.
  view.shareWith((uuid) => shard.table.get(uuid));
  let now = Date.now();
  const feed = new DashboardFeed(view, () => now);
  feed.onModuleInit();
  const internals = view as unknown as {
    take(record: InboundRecord): void;
    reportCatchUp(remaining: number): void;
  };
  internals.reportCatchUp(0);
  const terminations = Array.from({ length: n }, (_, i) => terminated(`app-${i}`, 143));
  const written = [
    ...records.encode(0, effects).filter((r) => !r.topic.endsWith('.broadcast')),
    ...terminations.map((t) => ({
      topic: topicName('terminations', settings.kafka.topicPrefix),
      ...encodeEvent(t),
    })),
  ];
  for (const [offset, record] of written.entries()) {
    const { topic, key, value, headers } = record;
    const decoded = Object.fromEntries(
      Object.entries(headers ?? {}).map(([k, v]) => [k, String(v)]),
    );
    internals.take({
      topic,
      partition: 0,
      offset: String(offset),
      key: key === null || key === undefined ? null : String(key),
      value: value === null ? null : Buffer.from(value),
      headers: decoded,
      timestamp: '0',
    });
  }
  if (afterReplayWindow) {
    // The dashboard's two minutes for a page to resume have passed: its trimmer's next round.
    now += KEPT_FOR_MS + 1;
    feed.log.trimExpired();
  }
  return [shard, view, feed];
}

const labels = new KpmLabels();

/** A running kpm pod as the API server returns it (managed fields, status, spec). */
function apiPod(i: number): V1Pod {
  const name = `app-${i}`;
  const time = new Date('2026-11-22T10:00:00Z');
  return JSON.parse(
    JSON.stringify({
      metadata: {
        name,
        namespace: 'run-1',
        uid: `0b0e8f5e-0000-4000-8000-${String(i).padStart(12, '0')}`,
        resourceVersion: String(100_000 + i),
        creationTimestamp: time,
        labels: {
          'creator.drunc.daq': 'kpm',
          'uuid.process.drunc.daq': `uuid-${i}`,
          'session.drunc.daq': 'run-1',
          'app.drunc.daq': name,
          'user.drunc.daq': 'daq',
          'tree-id.drunc.daq': '1.1.1',
        },
        annotations: {
          [labels.traceAnnotation]: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
          [labels.commandAnnotation]: `boot-${i}`,
          [labels.specAnnotation]: JSON.stringify({
            name,
            executableAndArguments: [{ exec: 'daq_application', args: ['-n', name] }],
            env: { RUN: '42', DUNEDAQ_PARTITION: 'run-1' },
            restriction: { allowedHosts: ['kpm-node-1'] },
            treeId: '1.1.1',
            role: 'application',
          }),
        },
        finalizers: [labels.terminationFinalizer],
        managedFields: [
          {
            manager: 'kpm-boot-worker',
            operation: 'Update',
            apiVersion: 'v1',
            time,
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app.drunc.daq': {} } } },
          },
          {
            manager: 'kwok',
            operation: 'Update',
            apiVersion: 'v1',
            time,
            fieldsType: 'FieldsV1',
            subresource: 'status',
            fieldsV1: { 'f:status': { 'f:conditions': {}, 'f:phase': {}, 'f:podIP': {} } },
          },
        ],
      },
      spec: {
        nodeName: 'kpm-node-1',
        restartPolicy: 'Never',
        terminationGracePeriodSeconds: 30,
        containers: [
          {
            name: 'main',
            image: 'daq/app:1',
            command: ['daq_application'],
            args: ['-n', name, '--session', 'run-1'],
            env: [
              { name: 'RUN', value: '42' },
              { name: 'DUNEDAQ_PARTITION', value: 'run-1' },
            ],
            resources: { requests: { cpu: '100m', memory: '64Mi' } },
          },
        ],
        tolerations: [{ key: 'kwok.x-k8s.io/node', operator: 'Exists', effect: 'NoSchedule' }],
      },
      status: {
        phase: 'Running',
        podIP: '10.0.0.1',
        startTime: time,
        conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({
          type,
          status: 'True',
          lastTransitionTime: time,
        })),
        containerStatuses: [
          {
            name: 'main',
            image: 'daq/app:1',
            imageID: '',
            ready: true,
            restartCount: 0,
            started: true,
            state: { running: { startedAt: time } },
          },
        ],
      },
    }),
  ) as V1Pod;
}

function watcherTracker(n: number): TerminationTracker {
  const tracker = new TerminationTracker(labels, new Set(DEFAULT_FATAL_WAITING_REASONS));
  for (let i = 0; i < n; i++) tracker.observe('ADDED', apiPod(i), 'watch');
  return tracker;
}

/** The state service's heap per process booted and killed, in bytes (its shard, view, dashboard). */
export function stateHeapPerProcess(n = 10_000): number {
  return perRow(n, stateReplica);
}

function main(): void {
  const n = Number(process.argv[2] ?? 10_000);
  const rows: Array<[string, number]> = [
    [`state shard, ${n} running processes`, perRow(n, (k) => stateShard(k, false))],
    [`state shard, ${n} processes booted and killed`, perRow(n, (k) => stateShard(k, true))],
    [
      `state replica (shard, view, dashboard), ${n} processes booted and killed`,
      stateHeapPerProcess(n),
    ],
    [
      `the same, once the dashboard's ${KEPT_FOR_MS / 60_000}-minute replay window has passed`,
      perRow(n, (k) => stateReplica(k, true)),
    ],
    [`watcher tracker, ${n} running pods`, perRow(n, watcherTracker)],
  ];
  console.log('| what | heap bytes per row |\n| --- | --- |');
  for (const [what, bytes] of rows) console.log(`| ${what} | ${Math.round(bytes)} |`);
}

if (require.main === module) main();
