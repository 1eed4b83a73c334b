/**
 * kwok connects as a user of its own, and may delete only pods that are being deleted.
 *
 * A kubelet finishes a pod's deletion with a precondition on the pod's uid, so it never deletes
 * a newer pod that took the name. kwok (v0.8.0) deletes by name alone, and replays its
 * `pod-delete` stage from its cache: after a restart (kpm keeps a process's name and uuid), a
 * replay for the old pod deleted the new one, which kpm then reported as ended (137, or -1 when
 * kwok had not started it yet). The stack's API server holds kwok to the kubelet's rule with a
 * ValidatingAdmissionPolicy: a DELETE of a pod by kwok's user is refused unless that pod already
 * has a deletionTimestamp — the only pods `stack/kube/kwok.yaml` deletes.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { kubeCall, type KubeEndpoint } from '@kpm/kube';
import { stackPaths } from '../paths';
import { certificateKubeconfig, KUBE_CONTEXT } from './kubeconfig';
import { issueCertificate, type KubePki } from './pki';

export const KWOK_USER = 'kpm-kwok';
export const KWOK_DELETE_POLICY = 'kpm-kwok-deletes-only-pods-being-deleted';

export function kwokKubeconfigPath(): string {
  return join(stackPaths.data('kwok'), 'kubeconfig');
}

/** kwok's kubeconfig: a client certificate of its own (system:masters), made once. */
export function ensureKwokKubeconfig(endpoint: KubeEndpoint, pki: KubePki): string {
  const cert = join(pki.dir, 'kwok-client.crt');
  const key = join(pki.dir, 'kwok-client.key');
  // Beside the CA: a CA made again removes them, and they are issued anew.
  if (!existsSync(cert) || !existsSync(key)) {
    issueCertificate(pki, {
      cert,
      key,
      subject: `/O=system:masters/CN=${KWOK_USER}`,
      usage: 'clientAuth',
    });
  }
  const file = kwokKubeconfigPath();
  mkdirSync(dirname(file), { recursive: true });
  const config = certificateKubeconfig({
    server: endpoint.server,
    caFile: pki.caCert,
    user: KWOK_USER,
    cert,
    key,
    context: KUBE_CONTEXT,
  });
  writeFileSync(file, config, { mode: 0o600 });
  return file;
}

/** The policy and its binding, applied (server-side apply: idempotent, kept up to date). */
export async function ensureKwokDeletePolicy(endpoint: KubeEndpoint): Promise<void> {
  const group = '/apis/admissionregistration.k8s.io/v1';
  await apply(endpoint, `${group}/validatingadmissionpolicies/${KWOK_DELETE_POLICY}`, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: KWOK_DELETE_POLICY },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [
          { apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE'], resources: ['pods'] },
        ],
      },
      matchConditions: [
        { name: 'by-kwok', expression: `request.userInfo.username == '${KWOK_USER}'` },
      ],
      validations: [
        {
          expression: 'has(oldObject.metadata.deletionTimestamp)',
          message:
            'kwok finishes the deletion of pods being deleted only: this pod is not (a newer pod took the name)',
        },
      ],
    },
  });
  await apply(endpoint, `${group}/validatingadmissionpolicybindings/${KWOK_DELETE_POLICY}`, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: KWOK_DELETE_POLICY },
    spec: { policyName: KWOK_DELETE_POLICY, validationActions: ['Deny'] },
  });
}

async function apply(endpoint: KubeEndpoint, path: string, object: unknown): Promise<void> {
  const result = await kubeCall(
    endpoint,
    'PATCH',
    `${path}?fieldManager=kpm-stack&force=true`,
    object,
    'application/apply-patch+yaml',
  );
  if (result.status >= 300) {
    throw new Error(`kpm: applying ${path} failed: HTTP ${result.status} ${result.body}`);
  }
}
