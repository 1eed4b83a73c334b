/**
 * `kpm ps --live` (docs/design.md §7.3): drunc's `is_alive` for each listed process, asked of the
 * API server with the operator's own kubeconfig (`KUBECONFIG`, `.kpm/stack.env`, or the usual
 * defaults). One read-only list of kpm's pods per session namespace, so per-namespace read
 * rights suffice; nothing goes through Kafka and no service is asked.
 */
import { errorText } from '@kpm/common';
import type { ProcessInstance } from '@kpm/contracts';
import type { KpmSettings } from '@kpm/config';
import { createKubeApis, KpmLabels, livenessByUuid, PodGateway, type PodLiveness } from '@kpm/kube';
import { CliError } from '../exit-codes';

/** A CLI answers quickly or says why: no long retries against an API server that is away. */
const LIVE_REQUEST_TIMEOUT_MS = 10_000;

export async function clusterLiveness(
  processes: readonly ProcessInstance[],
  settings: Pick<KpmSettings, 'kubeconfig' | 'labels'>,
): Promise<Map<string, PodLiveness>> {
  const labels = new KpmLabels(settings.labels.domain);
  const sessions = [...new Set(processes.map((p) => p.description.metadata.session))];
  try {
    const { core } = createKubeApis(settings.kubeconfig, LIVE_REQUEST_TIMEOUT_MS);
    const pods = new PodGateway(core, labels, { deadlineMs: LIVE_REQUEST_TIMEOUT_MS });
    const listed = await Promise.all(sessions.map((session) => pods.list({}, session)));
    return livenessByUuid(
      processes.map((p) => p.uuid),
      listed.flatMap((l) => l.pods),
      labels,
    );
  } catch (error) {
    const why = errorText(error);
    throw new CliError(`--live: cannot ask the cluster with your kubeconfig (${why})`);
  }
}
