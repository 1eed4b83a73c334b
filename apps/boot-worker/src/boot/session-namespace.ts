/**
 * The session's namespace for a boot: created with kpm's creator label and the owner's user
 * label (plus drunc's pod-security level), after waiting out a Terminating one of the same name.
 */
import type { V1Namespace } from '@kubernetes/client-node';
import type { KpmSettings } from '@kpm/config';
import { failureOf } from '@kpm/kube';
import type { Cluster } from '../cluster';
import { StopRequested } from '../commands/command-context';
import { POD_SECURITY_ENFORCE, podSecurityLabels, type PodSecurityLevel } from './pod-policy';
import { namespaceView } from './session-ownership';
import type { BootFailure } from './process-booter';

export class SessionNamespace {
  constructor(
    private readonly cluster: Cluster,
    private readonly settings: KpmSettings,
  ) {}

  /** Why the session cannot take the boot's processes, or undefined once its namespace is ready. */
  async prepare(
    current: V1Namespace | undefined,
    session: string,
    user: string,
    signal: AbortSignal,
    level: PodSecurityLevel = 'baseline',
  ): Promise<BootFailure | undefined> {
    try {
      return await this.ensure(current, session, user, signal, level);
    } catch (error) {
      if (error instanceof StopRequested) throw error;
      const { reason, message } = failureOf(error);
      return {
        ok: false,
        code: reason || 'NamespaceFailed',
        message: `namespace ${session}: ${message}`,
      };
    }
  }

  private async ensure(
    current: V1Namespace | undefined,
    session: string,
    user: string,
    signal: AbortSignal,
    level: PodSecurityLevel,
  ): Promise<BootFailure | undefined> {
    let namespace = current;
    if (namespace?.metadata?.deletionTimestamp) {
      const timeoutS = this.settings.podManagement.namespaceCleanupTimeoutSeconds;
      const gone = await this.cluster.waitNamespaceGone(session, timeoutS * 1000, signal);
      if (signal.aborted) throw new StopRequested();
      if (!gone)
        return fail(
          'NamespaceTerminating',
          `namespace ${session} is still terminating after ${timeoutS} s`,
        );
      namespace = undefined;
    }
    if (!namespace) {
      const { labels } = this.cluster;
      namespace = await this.cluster.namespaces.create(session, {
        [labels.session]: session,
        [labels.user]: user,
        ...podSecurityLabels(level),
      });
    }
    const view = namespaceView(namespace, this.cluster.labels);
    if (!view.kpm || view.owner !== user) {
      return fail(
        'SessionTaken',
        `namespace ${session} was taken meanwhile by ${view.owner ?? 'someone other than kpm'}`,
      );
    }
    if (namespace.metadata?.deletionTimestamp) {
      return fail('NamespaceTerminating', `namespace ${session} is being deleted`);
    }
    await this.loosenIfNeeded(namespace, level);
    return undefined;
  }

  /** A later boot that needs host access loosens the level (never tightens: pods run). */
  private async loosenIfNeeded(namespace: V1Namespace, level: PodSecurityLevel): Promise<void> {
    const current = namespace.metadata?.labels?.[POD_SECURITY_ENFORCE];
    if (level === 'privileged' && current !== 'privileged') {
      await this.cluster.namespaces.setLabels(namespace, podSecurityLabels(level));
    }
  }
}

function fail(code: string, message: string): BootFailure {
  return { ok: false, code, message };
}
