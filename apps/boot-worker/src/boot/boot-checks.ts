/**
 * The boot-worker's own checks of a boot, beyond the contract's: the pure rules of
 * boot-validator.ts fed with what the cluster holds now — the session's namespace, its processes,
 * the processes elsewhere with a uuid the client chose — and drunc's node ports (node-port-service.ts).
 */
import type { V1Namespace } from '@kubernetes/client-node';
import type { BootCommand, FieldError } from '@kpm/contracts';
import type { Cluster } from '../cluster/cluster';
import type { ProcessPod } from '../cluster/process-pod';
import type { EndingRule } from '../cluster/pod-state';
import { validateBoot, type BootPolicy, type ExistingProcess } from './boot-validator';
import { landingRefusals, namedHosts } from './landing-check';
import { nodePortRefusals } from './node-port-service';
import type { NetworkSettings } from './process-network';
import type { PlannedProcess } from './planned-process';
import { namespaceView } from './session-ownership';

/** What the cluster holds that a boot's rules look at. */
export interface ClusterProcesses {
  existing: ProcessPod[];
  elsewhere: ProcessPod[];
}

export class BootChecks {
  constructor(
    private readonly cluster: Cluster,
    private readonly endings: EndingRule,
    private readonly policy: BootPolicy,
    private readonly settings: NetworkSettings,
  ) {}

  /**
   * Why the boot is refused (empty: it may go ahead). A uuid the client chose is looked up in
   * every session: the state and the watcher key processes by uuid alone.
   */
  async refusals(
    { session, user, allOrNothing }: BootCommand,
    processes: PlannedProcess[],
    namespace: V1Namespace | undefined,
    { existing, elsewhere }: ClusterProcesses,
  ): Promise<FieldError[]> {
    const { labels } = this.cluster;
    const errors = validateBoot(
      {
        session,
        user,
        processes,
        namespace: namespace && namespaceView(namespace, labels),
        existing: existing.map((p) => this.asExisting(p)),
        elsewhere: elsewhere.map((p) => this.asExisting(p)),
      },
      this.policy,
    );
    const ports = await this.nodePortRefusals(session, processes);
    const landing = allOrNothing ? await this.landingRefusals(processes) : [];
    return [...errors, ...ports, ...landing];
  }

  /** An all-or-nothing boot: every process can land before anything is created (landing-check.ts). */
  private async landingRefusals(processes: PlannedProcess[]): Promise<FieldError[]> {
    const { nodes } = this.cluster;
    const hosts = namedHosts(processes);
    const verdicts = new Map(
      (await Promise.all(hosts.map((h) => nodes.check(h)))).map((v) => [v.name, v]),
    );
    const anyUsableNode = (await nodes.choose('all-or-nothing')) !== undefined;
    const summary = anyUsableNode ? '' : await nodes.summary();
    return landingRefusals(processes, { verdicts, anyUsableNode, summary });
  }

  /**
   * The processes the boot's rules look at: the session's (none while it has no namespace) and
   * those elsewhere with a uuid the client chose. Read while the namespace is read, not after it.
   */
  async processesFor({ session, processes: specs }: BootCommand): Promise<ClusterProcesses> {
    const { pods } = this.cluster;
    const chosen = specs.flatMap((spec) => (spec.uuid ? [spec.uuid] : []));
    const [existing, elsewhere] = await Promise.all([
      pods.processes(session),
      chosen.length > 0 ? pods.withUuids(chosen) : Promise.resolve([]),
    ]);
    return { existing, elsewhere };
  }

  /** A restart's stored spec through the rules a boot passes (it may predate today's settings). */
  specRefusals(session: string, user: string, process: PlannedProcess): FieldError[] {
    return validateBoot({ session, user, processes: [process], existing: [] }, this.policy);
  }

  private asExisting(process: ProcessPod): ExistingProcess {
    const { name, podName, uuid, session, pod } = process;
    return { name, podName, uuid, session, alive: this.endings.isAlive(pod) };
  }

  /** drunc's node ports: in the cluster's range and held by no other Service. */
  private nodePortRefusals(session: string, processes: PlannedProcess[]): Promise<FieldError[]> {
    const { services } = this.cluster;
    return nodePortRefusals(session, processes, this.settings, (port) =>
      services.nodePortHolder(port),
    );
  }
}
