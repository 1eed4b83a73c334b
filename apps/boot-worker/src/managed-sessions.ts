/**
 * At start, the session namespaces kpm manages, logged as drunc's K8sProcessManager logs them, so
 * an operator sees what a previous run left behind.
 */
import type { NamespaceGateway } from '@kpm/kube';

/** drunc's text, with kpm as the creator. */
export function managedSessionsText(names: readonly string[]): string {
  return names.length > 0
    ? `Active namespaces created by kpm:\n - ${names.join('\n - ')}`
    : 'No active namespace created by kpm';
}

/** Logs the managed namespaces; a failure to list them is logged too, never fatal. */
export async function logManagedSessions(
  namespaces: Pick<NamespaceGateway, 'listOurs'>,
  logger: { log(message: string): void; warn(message: string): void },
): Promise<void> {
  try {
    logger.log(managedSessionsText(await namespaces.listOurs()));
  } catch (error) {
    logger.warn(`could not list the namespaces kpm manages: ${String(error)}`);
  }
}
