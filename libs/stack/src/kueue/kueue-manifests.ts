/**
 * What the API server needs to run Kueue beside it, derived from Kueue's own manifests (its
 * module's `config/components`): the CRDs, their conversion webhook, and the admission webhooks
 * of the pod integration and of Kueue's own kinds — each reached by URL on 127.0.0.1 instead of
 * through a Service, since no Service routes to a process of the host.
 */

/** Kueue's namespace: its certificate Secret lives there (the rotator reads it). */
export const KUEUE_NAMESPACE = 'kueue-system';
/**
 * Kueue's defaults (apis/config/v1beta2/defaults.go): its certificate rotator injects the CA into
 * webhook configurations named `<base>-mutating-webhook-configuration` and
 * `<base>-validating-webhook-configuration`, base being this name without `-webhook-service`.
 */
export const KUEUE_WEBHOOK_SERVICE = 'kueue-webhook-service';
export const KUEUE_WEBHOOK_SECRET = 'kueue-webhook-server-cert';
export const KUEUE_MUTATING = 'kueue-mutating-webhook-configuration';
export const KUEUE_VALIDATING = 'kueue-validating-webhook-configuration';
/** The DNS name the rotator checks the serving certificate against (`<service>.<namespace>.svc`). */
export const KUEUE_WEBHOOK_DNS = `${KUEUE_WEBHOOK_SERVICE}.${KUEUE_NAMESPACE}.svc`;
/** The rotator's CA name: the CA certificate must be valid for it as a DNS name. */
export const KUEUE_CA_NAME = 'kueue-ca';

/** The label a pod must carry for Kueue's pod webhooks to be called at all. */
export const KUEUE_QUEUE_LABEL = 'kueue.x-k8s.io/queue-name';

/** The CRDs Kueue's kustomization patches with a conversion webhook (`patches/webhook_in_*`). */
export const CONVERTED_CRDS = [
  'localqueues.kueue.x-k8s.io',
  'clusterqueues.kueue.x-k8s.io',
  'cohorts.kueue.x-k8s.io',
  'workloads.kueue.x-k8s.io',
  'multikueueclusters.kueue.x-k8s.io',
];

interface Webhook {
  name: string;
  clientConfig: { service?: { path?: string }; url?: string; caBundle?: string };
  objectSelector?: unknown;
  [key: string]: unknown;
}

export interface WebhookConfiguration {
  apiVersion: string;
  kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration';
  metadata: { name: string };
  webhooks: Webhook[];
}

interface Crd {
  apiVersion: string;
  kind: string;
  metadata: { name: string; [key: string]: unknown };
  spec: { conversion?: unknown; [key: string]: unknown };
}

/** Where the API server reaches Kueue's webhook server, and the CA that signed it (base64 PEM). */
export interface WebhookEndpoint {
  baseUrl: string;
  caBundle: string;
}

/**
 * Kueue's webhooks for plain pods and for its own kinds, the others (jobs, Ray, Kubeflow … whose
 * integrations the stack does not enable) left out. A pod webhook is called only for pods with a
 * queue name: a pod of any other suite never waits on Kueue, and a stopped Kueue fails no pod
 * but Kueue's own.
 */
export function kueueWebhooks(
  manifests: readonly WebhookConfiguration[],
  endpoint: WebhookEndpoint,
): WebhookConfiguration[] {
  return manifests.map((manifest) => {
    const webhooks = manifest.webhooks
      .filter((hook) => isKept(pathOf(hook)))
      .map((hook) => {
        const path = pathOf(hook);
        const kept: Webhook = {
          ...hook,
          clientConfig: { url: `${endpoint.baseUrl}${path}`, caBundle: endpoint.caBundle },
        };
        if (path.endsWith('--v1-pod'))
          kept.objectSelector = {
            matchExpressions: [{ key: KUEUE_QUEUE_LABEL, operator: 'Exists' }],
          };
        return kept;
      });
    const name =
      manifest.kind === 'MutatingWebhookConfiguration' ? KUEUE_MUTATING : KUEUE_VALIDATING;
    return { apiVersion: manifest.apiVersion, kind: manifest.kind, metadata: { name }, webhooks };
  });
}

/** A CRD as Kueue's kustomization makes it: converted by Kueue's webhook where it patches one in. */
export function kueueCrd<T extends Crd>(crd: T, endpoint: WebhookEndpoint): T {
  if (!CONVERTED_CRDS.includes(crd.metadata.name)) return crd;
  const conversion = {
    strategy: 'Webhook',
    webhook: {
      conversionReviewVersions: ['v1'],
      clientConfig: { url: `${endpoint.baseUrl}/convert`, caBundle: endpoint.caBundle },
    },
  };
  return { ...crd, spec: { ...crd.spec, conversion } };
}

function pathOf(hook: Webhook): string {
  const path = hook.clientConfig.service?.path;
  if (!path) throw new Error(`kpm: Kueue's webhook ${hook.name} names no service path`);
  return path;
}

function isKept(path: string): boolean {
  return path.endsWith('--v1-pod') || path.includes('-kueue-x-k8s-io-');
}
