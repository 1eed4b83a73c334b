import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultStack } from '../default-stack';
import {
  KUEUE_MUTATING,
  KUEUE_QUEUE_LABEL,
  KUEUE_VALIDATING,
  kueueCrd,
  kueueWebhooks,
  type WebhookConfiguration,
} from './kueue-manifests';
import { kueuePorts } from './kueue';

const endpoint = { baseUrl: 'https://127.0.0.1:16482', caBundle: 'Q0E=' };

function hook(name: string, path: string) {
  return {
    name,
    admissionReviewVersions: ['v1'],
    clientConfig: { service: { name: 'webhook-service', namespace: 'system', path } },
    failurePolicy: 'Fail',
    sideEffects: 'None',
  };
}

/** The shape of Kueue's config/components/webhook/manifests.yaml, a few of its entries. */
const upstream: WebhookConfiguration[] = [
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: 'mutating-webhook-configuration' },
    webhooks: [
      hook('mjob.kb.io', '/mutate-batch-v1-job'),
      hook('mpod.kb.io', '/mutate--v1-pod'),
      hook('mworkload.kb.io', '/mutate-kueue-x-k8s-io-v1beta2-workload'),
    ],
  },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'validating-webhook-configuration' },
    webhooks: [
      hook('vpod.kb.io', '/validate--v1-pod'),
      hook('vraycluster.kb.io', '/validate-ray-io-v1-raycluster'),
      hook('vclusterqueue.kb.io', '/validate-kueue-x-k8s-io-v1beta2-clusterqueue'),
    ],
  },
];

describe('Kueue’s manifests as the local stack applies them', () => {
  it('keeps the pod and Kueue webhooks only, each called by URL, under the names its rotator injects', () => {
    const [mutating, validating] = kueueWebhooks(upstream, endpoint);
    expect(mutating.metadata.name).toBe(KUEUE_MUTATING);
    expect(validating.metadata.name).toBe(KUEUE_VALIDATING);
    expect(mutating.webhooks.map((h) => h.name)).toEqual(['mpod.kb.io', 'mworkload.kb.io']);
    expect(validating.webhooks.map((h) => h.name)).toEqual(['vpod.kb.io', 'vclusterqueue.kb.io']);
    expect(mutating.webhooks[1].clientConfig).toEqual({
      url: 'https://127.0.0.1:16482/mutate-kueue-x-k8s-io-v1beta2-workload',
      caBundle: 'Q0E=',
    });
    expect(mutating.webhooks[1].failurePolicy).toBe('Fail');
  });

  it('calls the pod webhooks only for pods that name a queue', () => {
    const pods = kueueWebhooks(upstream, endpoint)
      .flatMap((c) => c.webhooks)
      .filter((h) => h.name.endsWith('pod.kb.io'));
    expect(pods).toHaveLength(2);
    for (const pod of pods)
      expect(pod.objectSelector).toEqual({
        matchExpressions: [{ key: KUEUE_QUEUE_LABEL, operator: 'Exists' }],
      });
    const workload = kueueWebhooks(upstream, endpoint)[0].webhooks[1];
    expect(workload.objectSelector).toBeUndefined();
  });

  it('refuses a webhook that names no path rather than register one that calls nowhere', () => {
    const broken = [{ ...upstream[0], webhooks: [{ name: 'm.kb.io', clientConfig: {} }] }];
    expect(() => kueueWebhooks(broken, endpoint)).toThrow(/m\.kb\.io names no service path/);
  });

  it('converts the kinds Kueue’s kustomization converts, through the same server', () => {
    const crd = (name: string) => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name },
      spec: { group: 'kueue.x-k8s.io' } as { group: string; conversion?: unknown },
    });
    expect(kueueCrd(crd('workloads.kueue.x-k8s.io'), endpoint).spec.conversion).toEqual({
      strategy: 'Webhook',
      webhook: {
        conversionReviewVersions: ['v1'],
        clientConfig: { url: 'https://127.0.0.1:16482/convert', caBundle: 'Q0E=' },
      },
    });
    expect(kueueCrd(crd('topologies.kueue.x-k8s.io'), endpoint).spec.conversion).toBeUndefined();
  });
});

describe('Kueue in the stack', () => {
  const saved = { KPM_HOME: process.env.KPM_HOME, KPM_STACK_KUEUE: process.env.KPM_STACK_KUEUE };
  let home: string;

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'kpm-kueue-'));
    process.env.KPM_HOME = home;
    delete process.env.KPM_STACK_KUEUE;
  });

  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(home, { recursive: true, force: true });
  });

  it('is part of the stack when asked (or KPM_STACK_KUEUE=1), and only with the API server', async () => {
    const names = async (stack: ReturnType<typeof defaultStack>) =>
      (await stack.status()).map((s) => s.name);
    expect(await names(defaultStack(['kafka', 'kube']))).not.toContain('kueue');
    expect(await names(defaultStack(['kafka', 'kube'], { kueue: true }))).toContain('kueue');
    process.env.KPM_STACK_KUEUE = '1';
    expect(await names(defaultStack(['kafka', 'kube']))).toContain('kueue');
    expect(await names(defaultStack(['kafka']))).not.toContain('kueue');
  });

  it('listens on ports of its own unless told, and refuses what is not a port', () => {
    expect(kueuePorts({})).toEqual({ webhook: 16482, health: 16481 });
    expect(kueuePorts({ KPM_KUEUE_WEBHOOK_PORT: '20000' }).webhook).toBe(20000);
    expect(() => kueuePorts({ KPM_KUEUE_HEALTH_PORT: 'x' })).toThrow(/KPM_KUEUE_HEALTH_PORT=x/);
  });
});
