/**
 * At start, the session namespaces kpm manages, logged as drunc's K8sProcessManager logs them, so
 * an operator sees what a previous run left behind.
 */
import { errorText, logEvent, type LogEvent } from '@kpm/common';
import type { NamespaceGateway } from '@kpm/kube';

/** drunc's text, with kpm as the creator. */
export function managedSessionsText(names: readonly string[]): string {
  return names.length > 0
    ? `Active namespaces created by kpm:\n - ${names.join('\n - ')}`
    : 'No active namespace created by kpm';
}

/**
 * Logs the managed namespaces (`sessions` as a field, drunc's words as `drunc`); a failure to list
 * them is logged too, never fatal.
 */
export async function logManagedSessions(
  namespaces: Pick<NamespaceGateway, 'listOurs'>,
  logger: { log(entry: LogEvent): void; warn(entry: LogEvent): void },
): Promise<void> {
  try {
    const sessions = await namespaces.listOurs();
    logger.log(logEvent('sessions.managed', { sessions, drunc: managedSessionsText(sessions) }));
  } catch (error) {
    logger.warn(logEvent('sessions.list_failed', { error: errorText(error) }));
  }
}
