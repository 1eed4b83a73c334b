/**
 * The deploy kit (deploy/) against the real local API server: every overlay renders with
 * `kubectl kustomize` and is accepted by `kubectl apply --dry-run=server -k`; the Deployments
 * hold what a cluster operator relies on (pinned image, hardened securityContext, probes on the
 * real health endpoints, replicas, PDBs, spread, configuration that loads); and a
 * SubjectAccessReview matrix proves what each ServiceAccount may and may NOT do.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  KubeConfig,
  V1ConfigMap,
  V1Deployment,
  V1PodDisruptionBudget,
  V1Probe,
  V1ResourceAttributes,
  V1Role,
} from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import { loadSettings } from '@kpm/config';
import { SERVICE_V8_FLAGS } from '@kpm/service-kit/v8-flags';
import { REAL_NODE_LABEL } from '@kpm/stack';
import {
  adminKubeConfig,
  applyKitRbac,
  DEPLOY_DIR,
  KIT_DIRS,
  KIT_NAMESPACE,
  kubectl,
  renderKit,
  serviceAccountMay,
  SERVICE_ACCOUNTS,
  type KubeObject,
} from '../support/deploy-kit';
import { stackEnv } from '../support/stack-env';

jest.setTimeout(120_000);

const SERVICES = Object.keys(SERVICE_ACCOUNTS) as (keyof typeof SERVICE_ACCOUNTS)[];

function deployments(objects: KubeObject[]): Map<string, V1Deployment> {
  return new Map(
    objects
      .filter((o) => o.kind === 'Deployment')
      .map((o) => [o.metadata.name, o as unknown as V1Deployment]),
  );
}

function configFile(objects: KubeObject[]): string {
  const map = objects.find(
    (o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('kpm-config'),
  );
  return (map as unknown as V1ConfigMap).data!['kpm.yaml'];
}

describe.each(KIT_DIRS)('deploy/%s renders', (dir) => {
  const objects = renderKit(dir);
  const byName = deployments(objects);
  const workload = (service: string) => {
    const spec = byName.get(`kpm-${service}`)!.spec!;
    const pod = spec.template.spec!;
    return { spec, pod, container: pod.containers[0] };
  };

  it('with one Deployment and one PodDisruptionBudget per service, all in kpm-system', () => {
    expect([...byName.keys()].sort()).toEqual(SERVICES.map((s) => `kpm-${s}`).sort());
    for (const object of objects) {
      if (!['Namespace', 'ClusterRole', 'ClusterRoleBinding'].includes(object.kind))
        expect(`${object.kind}/${object.metadata.name} in ${object.metadata.namespace}`).toBe(
          `${object.kind}/${object.metadata.name} in ${KIT_NAMESPACE}`,
        );
    }
    const budgets = objects.filter(
      (o) => o.kind === 'PodDisruptionBudget',
    ) as unknown as V1PodDisruptionBudget[];
    for (const [name, deployment] of byName) {
      const selects = budgets.filter(
        (b) =>
          JSON.stringify(b.spec?.selector?.matchLabels) ===
          JSON.stringify(deployment.spec?.selector.matchLabels),
      );
      expect(`${name}: ${selects.length} PDB`).toBe(`${name}: 1 PDB`);
    }
  });

  it.each(SERVICES)(
    '%s: pinned image, command, its ServiceAccount, replicas, spread',
    (service) => {
      const { spec, pod, container } = workload(service);
      expect(container.image).toMatch(/^[^@]+(:[\w][\w.-]*|@sha256:[0-9a-f]{64})$/);
      expect(container.image).not.toMatch(/:latest$/);
      expect(container.command).toEqual([
        'node',
        ...SERVICE_V8_FLAGS,
        `dist/apps/${service}/src/main.js`,
      ]);
      expect(pod.serviceAccountName).toBe(SERVICE_ACCOUNTS[service]);
      // Service links would put KPM_DRUNC_GATEWAY_PORT=tcp://… into every pod: a kpm setting.
      expect(pod.enableServiceLinks).toBe(false);
      if (dir === 'overlays/local') {
        // One real node and the host network: a second replica would want the same host port.
        expect(spec.replicas).toBe(1);
      } else {
        expect(spec.replicas).toBeGreaterThanOrEqual(2);
        if (service === 'watcher') expect(spec.replicas).toBe(2);
      }
      expect(pod.topologySpreadConstraints).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            topologyKey: 'kubernetes.io/hostname',
            labelSelector: { matchLabels: spec.selector.matchLabels },
          }),
        ]),
      );
      expect(pod.automountServiceAccountToken === false).toBe(
        service === 'state' || service === 'drunc-gateway',
      );
    },
  );

  it.each(SERVICES)('%s: non-root, read-only, no capabilities, seccomp, resources', (service) => {
    const { pod, container } = workload(service);
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(Number.isInteger(pod.securityContext?.runAsUser)).toBe(true);
    expect(pod.securityContext?.runAsUser).toBeGreaterThan(0);
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.resources?.requests).toEqual({
      cpu: expect.any(String),
      memory: expect.any(String),
    });
    expect(container.resources?.limits?.memory).toEqual(expect.any(String));
  });

  it.each(SERVICES)(
    '%s: probes on /healthz and /readyz, configuration from the ConfigMap',
    (service) => {
      const { pod, container } = workload(service);
      const path = (probe: V1Probe | undefined) => probe?.httpGet?.path;
      expect(
        [container.startupProbe, container.livenessProbe, container.readinessProbe].map(path),
      ).toEqual(['/healthz', '/healthz', '/readyz']);
      const configMap = pod.volumes?.find((v) => v.configMap)?.configMap;
      expect(configMap?.name).toMatch(/^kpm-config-[a-z0-9]+$/);
      expect(container.env).toEqual(
        expect.arrayContaining([{ name: 'KPM_CONFIG', value: '/etc/kpm/kpm.yaml' }]),
      );
      expect(
        objects.some((o) => o.kind === 'ConfigMap' && o.metadata.name === configMap?.name),
      ).toBe(true);
    },
  );

  it('with a configuration every service loads', () => {
    const dirForFile = mkdtempSync(join(tmpdir(), 'kpm-kit-'));
    try {
      const file = join(dirForFile, 'kpm.yaml');
      writeFileSync(file, configFile(objects));
      for (const service of SERVICES) {
        const settings = loadSettings(service, { KPM_CONFIG: file });
        expect(settings.http).toMatchObject({ host: '0.0.0.0', port: 8080 });
        expect(settings.http.auth).toBeUndefined();
        expect(settings.watcher).toMatchObject({
          leaseNamespace: KIT_NAMESPACE,
          leaseName: 'kpm-watcher',
        });
        if (dir !== 'overlays/local') {
          // In a cluster the scheduler places pods, and only listed images may be booted.
          expect(settings.podManagement.assignNodes).toBe(false);
          expect(settings.podManagement.allowedImages).not.toContain('*');
        }
      }
    } finally {
      rmSync(dirForFile, { recursive: true, force: true });
    }
  });

  it('with the watcher Lease the config names being the one its Role may update', () => {
    const config = parseYaml(configFile(objects)) as { watcher: { leaseName: string } };
    const lease = config.watcher.leaseName;
    const role = objects.find(
      (o) => o.kind === 'Role' && o.metadata.name === 'kpm-watcher-lease',
    ) as unknown as V1Role;
    const updatable = role.rules!.filter((r) => r.verbs.includes('update'));
    expect(updatable.map((r) => r.resourceNames)).toEqual([[lease]]);
  });
});

describe('deploy/overlays/local runs on the real node', () => {
  const byName = deployments(renderKit('overlays/local'));
  const ports = new Set<number>();

  it.each(SERVICES)(
    '%s: host network, a port of its own, the real node, kpm’s local image',
    (service) => {
      const pod = byName.get(`kpm-${service}`)!.spec!.template.spec!;
      const container = pod.containers[0];
      expect(pod.hostNetwork).toBe(true);
      expect(pod.nodeSelector).toEqual({ [REAL_NODE_LABEL]: 'true' });
      expect(pod.tolerations).toEqual([
        { key: REAL_NODE_LABEL, operator: 'Exists', effect: 'NoSchedule' },
      ]);
      expect(container.image).toBe('localhost/kpm/kpm:0.1.0');
      expect(container.imagePullPolicy).toBe('Never');
      const port = container.ports![0].containerPort;
      expect(container.ports![0].name).toBe('http');
      expect(container.env).toEqual(
        expect.arrayContaining([{ name: 'KPM_HTTP_PORT', value: String(port) }]),
      );
      // The in-cluster client, of the services that call the API server, on 127.0.0.1.
      if (service !== 'drunc-gateway') {
        expect(container.env).toContainEqual({
          name: 'KUBERNETES_SERVICE_HOST',
          value: '127.0.0.1',
        });
      }
      ports.add(port);
    },
  );

  it('with a different port for each service', () => {
    expect(ports.size).toBe(SERVICES.length);
  });
});

describe('on the local API server', () => {
  let admin: KubeConfig;
  const adminPath = stackEnv().kubeconfig;

  beforeAll(() => {
    admin = adminKubeConfig(adminPath);
    // The Namespace must exist for a server-side dry run of the namespaced objects.
    applyKitRbac(adminPath!);
  });

  it.each(KIT_DIRS)('accepts `kubectl apply --dry-run=server -k deploy/%s`', (dir) => {
    const { stdout } = kubectl(['apply', '--dry-run=server', '-k', join(DEPLOY_DIR, dir)], {
      kubeconfig: adminPath,
    });
    for (const service of SERVICES) {
      expect(stdout).toMatch(
        new RegExp(`deployment.apps/kpm-${service} \\w+ \\(server dry run\\)`),
      );
      expect(stdout).toMatch(
        new RegExp(`poddisruptionbudget.policy/kpm-${service} \\w+ \\(server dry run\\)`),
      );
    }
  });

  describe('least privilege (SubjectAccessReview)', () => {
    const SESSION_NS = 'some-daq-session';
    const pods = (verb: string, namespace = SESSION_NS, subresource?: string) => ({
      verb,
      resource: 'pods',
      namespace,
      subresource,
    });
    const core = (verb: string, resource: string, namespace?: string, subresource?: string) => ({
      verb,
      resource,
      namespace,
      subresource,
    });
    const lease = (verb: string, name?: string, namespace = KIT_NAMESPACE) => ({
      verb,
      group: 'coordination.k8s.io',
      resource: 'leases',
      name,
      namespace,
    });
    const kueue = (verb: string, resource: string) => ({
      verb,
      group: 'kueue.x-k8s.io',
      resource,
      namespace: SESSION_NS,
    });
    const anything = { verb: '*', group: '*', resource: '*' };

    type Row = [string, V1ResourceAttributes, boolean];
    const bootWorker: Row[] = [
      // patch: a later boot that needs a host path loosens the session's Pod Security label.
      ...['get', 'list', 'watch', 'create', 'delete', 'patch'].map((v): Row => [
        `${v} namespaces`,
        core(v, 'namespaces'),
        true,
      ]),
      // patch: a Kueue pod group's gates lifted, Kueue's finalizer let go before a delete.
      ...['get', 'list', 'watch', 'create', 'delete', 'patch'].map((v): Row => [
        `${v} pods`,
        pods(v),
        true,
      ]),
      ['list pods in every namespace', pods('list', ''), true],
      ['read pod logs', pods('get', SESSION_NS, 'log'), true],
      [
        'update pods/finalizers (blockOwnerDeletion)',
        pods('update', SESSION_NS, 'finalizers'),
        true,
      ],
      ...['get', 'create', 'patch'].map((v): Row => [
        `${v} services`,
        core(v, 'services', SESSION_NS),
        true,
      ]),
      ['list services in every namespace (NodePort check)', core('list', 'services', ''), true],
      ...['get', 'create', 'delete'].map((v): Row => [
        `${v} configmaps`,
        core(v, 'configmaps', SESSION_NS),
        true,
      ]),
      ['list configmaps in every namespace', core('list', 'configmaps', ''), true],
      ['list nodes', core('list', 'nodes'), true],
      ...['get', 'create'].map((v): Row => [
        `${v} Kueue LocalQueues`,
        kueue(v, 'localqueues'),
        true,
      ]),
      ['get Kueue Workloads', kueue('get', 'workloads'), true],
      // What it must not do.
      ...['get', 'list', 'create'].map((v): Row => [
        `${v} secrets`,
        core(v, 'secrets', SESSION_NS),
        false,
      ]),
      ['list secrets in every namespace', core('list', 'secrets', ''), false],
      ['update pods', pods('update'), false],
      ['exec into pods', pods('create', SESSION_NS, 'exec'), false],
      ['update namespaces', core('update', 'namespaces'), false],
      ...['delete', 'update'].map((v): Row => [
        `${v} Kueue LocalQueues`,
        kueue(v, 'localqueues'),
        false,
      ]),
      ...['create', 'delete', 'update'].map((v): Row => [
        `${v} Kueue Workloads`,
        kueue(v, 'workloads'),
        false,
      ]),
      [
        'create Kueue ClusterQueues',
        { verb: 'create', group: 'kueue.x-k8s.io', resource: 'clusterqueues' },
        false,
      ],
      ...['get', 'create', 'patch', 'delete'].map((v): Row => [
        `${v} nodes`,
        core(v, 'nodes'),
        false,
      ]),
      ['delete services', core('delete', 'services', SESSION_NS), false],
      ['update configmaps', core('update', 'configmaps', SESSION_NS), false],
      ['create persistentvolumes', core('create', 'persistentvolumes'), false],
      [
        'mint ServiceAccount tokens',
        core('create', 'serviceaccounts', KIT_NAMESPACE, 'token'),
        false,
      ],
      [
        'create clusterroles',
        { verb: 'create', group: 'rbac.authorization.k8s.io', resource: 'clusterroles' },
        false,
      ],
      [
        'bind clusterroles',
        { verb: 'bind', group: 'rbac.authorization.k8s.io', resource: 'clusterroles' },
        false,
      ],
      [
        'create deployments',
        { verb: 'create', group: 'apps', resource: 'deployments', namespace: SESSION_NS },
        false,
      ],
      ['impersonate users', { verb: 'impersonate', resource: 'users' }, false],
      ['update leases', lease('update', 'kpm-watcher'), false],
      ['do anything', anything, false],
    ];
    const watcher: Row[] = [
      ...['list', 'watch', 'patch'].map((v): Row => [
        `${v} pods in every namespace`,
        pods(v, ''),
        true,
      ]),
      ['get its Lease', lease('get', 'kpm-watcher'), true],
      ['update its Lease', lease('update', 'kpm-watcher'), true],
      ['create a Lease in kpm-system', lease('create'), true],
      // Which nodes the cluster lost: a pod being deleted there ends NodeLost.
      ['list nodes', core('list', 'nodes'), true],
      // What it must not do: no create/delete, nothing outside pods, its Lease and the node list.
      ...['create', 'delete', 'update', 'deletecollection'].map((v): Row => [
        `${v} pods`,
        pods(v),
        false,
      ]),
      ['read pod logs', pods('get', SESSION_NS, 'log'), false],
      ['exec into pods', pods('create', SESSION_NS, 'exec'), false],
      ['update another Lease', lease('update', 'kube-scheduler'), false],
      ['get another Lease', lease('get', 'kube-scheduler'), false],
      ['delete its Lease', lease('delete', 'kpm-watcher'), false],
      ['create a Lease elsewhere', lease('create', undefined, 'kube-system'), false],
      ['list configmaps', core('list', 'configmaps', ''), false],
      ['get secrets', core('get', 'secrets', SESSION_NS), false],
      ['list namespaces', core('list', 'namespaces'), false],
      ['watch nodes', core('watch', 'nodes'), false],
      ['update nodes', core('update', 'nodes'), false],
      ['get services', core('get', 'services', SESSION_NS), false],
      ['create events', core('create', 'events', SESSION_NS), false],
      ['do anything', anything, false],
    ];
    const state: Row[] = [
      ['do anything', anything, false],
      ...['get', 'list', 'watch', 'create', 'patch', 'delete'].map((v): Row => [
        `${v} pods`,
        pods(v, ''),
        false,
      ]),
      ['list namespaces', core('list', 'namespaces'), false],
      ['get secrets', core('get', 'secrets', KIT_NAMESPACE), false],
      ['list configmaps', core('list', 'configmaps', ''), false],
      ['get leases', lease('get', 'kpm-watcher'), false],
      ['list nodes', core('list', 'nodes'), false],
    ];

    it.each([
      ...bootWorker.map(
        ([what, attributes, allowed]) => ['kpm-boot-worker', what, allowed, attributes] as const,
      ),
      ...watcher.map(
        ([what, attributes, allowed]) => ['kpm-watcher', what, allowed, attributes] as const,
      ),
      ...state.map(
        ([what, attributes, allowed]) => ['kpm-state', what, allowed, attributes] as const,
      ),
    ])('%s: %s → allowed %s', async (account, _what, allowed, attributes) => {
      expect(await serviceAccountMay(admin, account, attributes)).toBe(allowed);
    });
  });
});
