/**
 * The boot-worker's own checks of a boot, beyond the contract's: the pure rules of
 * boot-validator.ts fed with what the cluster holds now — the session's namespace, its processes,
 * the processes elsewhere with a uuid the client chose — and drunc's node ports (node-port-service.ts).
 */
import type { V1Namespace } from '@kubernetes/client-node';
import type { BootCommand, FieldError } from '@kpm/contracts';
import { milliOf, podNameOf, type NodeVerdict } from '@kpm/kube';
import type { Cluster } from '../cluster/cluster';
import type { ProcessPod } from '../cluster/process-pod';
import type { EndingRule } from '../cluster/pod-state';
import { validateBoot, type BootPolicy, type ExistingProcess } from './boot-validator';
import { landingRefusals, namedHosts } from './landing-check';
import { nodePortRefusals } from './node-port-service';
import { readoutProfileOf } from './readout-profile';
import type { NetworkSettings } from './process-network';
import type { PlannedProcess } from './planned-process';
import { namespaceView } from './session-ownership';

/**
 * A boot of at most this many processes reads only the session's pods its names would collide
 * with; a larger one reads the whole session in one list (as many lists of names would cost more).
 */
export const NAMED_READ_AT_MOST = 100;

/** What the cluster holds that a boot's rules look at. */
export interface ClusterProcesses {
  /** The session's processes the boot's names or uuids could collide with (or all of them). */
  existing: ProcessPod[];
  elsewhere: ProcessPod[];
  /** The session's infrastructure applications, among them a running connection server. */
  infrastructure: ProcessPod[];
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

  /**
   * An all-or-nothing boot: every process can land, and fits where it lands, before anything is
   * created (landing-check.ts).
   */
  private async landingRefusals(processes: PlannedProcess[]): Promise<FieldError[]> {
    const { nodes } = this.cluster;
    const hosts = namedHosts(processes);
    const verdicts = new Map(
      (await Promise.all(hosts.map((h) => nodes.check(h)))).map((v) => [v.name, v]),
    );
    const anyUsableNode = (await nodes.choose('all-or-nothing')) !== undefined;
    const summary = anyUsableNode ? '' : await nodes.summary();
    const free = await this.freeOn([...verdicts.values()]);
    const demand = (process: PlannedProcess, host: string) => this.demandOf(process, host);
    return landingRefusals(processes, { verdicts, anyUsableNode, summary, free, demand });
  }

  /** Allocatable less requested, in thousandths, of each usable host that tells its allocatable. */
  private async freeOn(verdicts: NodeVerdict[]): Promise<Map<string, Record<string, number>>> {
    const known = verdicts.filter((v) => v.usable && v.allocatable);
    const taken = await Promise.all(known.map((v) => this.cluster.nodes.requested(v.name)));
    return new Map(
      known.map((v, i) => {
        const free: Record<string, number> = {};
        for (const [resource, text] of Object.entries(v.allocatable!)) {
          const offered = milliOf(text);
          if (offered !== undefined) free[resource] = offered - (taken[i][resource] ?? 0);
        }
        return [v.name, free];
      }),
    );
  }

  /**
   * What the process's pod requests on `host`, in thousandths: a readout process's profile there
   * (drunc's host_configs), else its own resources; a limit without a request requests the limit.
   */
  private demandOf(process: PlannedProcess, host: string): Record<string, number> {
    const { spec } = process;
    const resources =
      readoutProfileOf(spec, this.policy.pod.readout, host)?.resources ?? spec.resources;
    const asked = { ...resources?.limits, ...resources?.requests };
    const demand: Record<string, number> = {};
    for (const [resource, text] of Object.entries(asked)) {
      const value = milliOf(String(text));
      if (value !== undefined && value > 0) demand[resource] = value;
    }
    return demand;
  }

  /**
   * The processes the boot's rules look at: the session's (none while it has no namespace) and
   * those elsewhere with a uuid the client chose. Read while the namespace is read, not after it.
   */
  async processesFor({ session, processes: specs }: BootCommand): Promise<ClusterProcesses> {
    const { pods } = this.cluster;
    const chosen = specs.flatMap((spec) => (spec.uuid ? [spec.uuid] : []));
    const podNames = [...new Set(specs.map((spec) => podNameOf(spec.name)))];
    const elsewhere = chosen.length > 0 ? pods.withUuids(chosen) : Promise.resolve([]);
    if (podNames.length > NAMED_READ_AT_MOST) {
      const [existing, found] = await Promise.all([pods.processes(session), elsewhere]);
      const infrastructure = existing.filter((p) => p.role === 'infrastructure-applications');
      return { existing, elsewhere: found, infrastructure };
    }
    // A drunc driver boots one process a call: reading the whole session each time made a call
    // grow with the session (a 400-process one read 400 pods per call).
    const [named, found, infrastructure] = await Promise.all([
      pods.named(session, podNames),
      elsewhere,
      pods.inRole(session, 'infrastructure-applications'),
    ]);
    const sameSession = found.filter(
      (p) => p.session === session && !named.some((n) => n.podName === p.podName),
    );
    return { existing: [...named, ...sameSession], elsewhere: found, infrastructure };
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
