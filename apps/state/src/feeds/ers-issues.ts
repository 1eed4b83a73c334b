/**
 * ERS's CRITICAL issue for a process that died without a kill, terminate or restart asking
 * (docs/design.md §5.7): what drunc's process manager logs to ERS as "Process <name> has died with
 * a return code <rc>", in erskafka's IssueChain. Pure: the death in, the issue out.
 */
import type { ProcessTerminated } from '@kpm/contracts';

export interface ErsOrigin {
  /** The issue's application (drunc's ERS logger: `drunc.process_manager`). */
  application: string;
  /** The host kpm's state service runs on, for the issue's context. */
  hostName: string;
}

/** The issue as the IssueChain message's fields (upstream names; `time` in ns since the epoch). */
export interface ErsIssue {
  final: {
    context: {
      cwd: string;
      file_name: string;
      function_name: string;
      host_name: string;
      line_number: number;
      package_name: string;
      process_id: number;
      thread_id: number;
      user_id: number;
      user_name: string;
      application_name: string;
    };
    name: string;
    inheritance: string[];
    message: string;
    severity: 'CRITICAL';
    /** Nanoseconds since the epoch, in decimal (beyond a double's integers). */
    time: string;
    parameters: Record<string, string>;
  };
  causes: [];
  session: string;
  application: string;
  module: string;
}

/** drunc's words for an unexpected death. */
export function deathMessage(t: Pick<ProcessTerminated, 'name' | 'exitCode'>): string {
  return `Process ${t.name} has died with a return code ${t.exitCode}`;
}

/**
 * The issue of one death. Its time is the container's exit (`finishedAt`), else when the watcher
 * saw the end: a re-publication carries the same time, and the record is written once anyway.
 */
export function ersIssue(t: ProcessTerminated, origin: ErsOrigin): ErsIssue {
  const when = Date.parse(t.finishedAt ?? t.observedAt);
  return {
    final: {
      context: {
        cwd: '',
        file_name: '',
        function_name: '',
        host_name: origin.hostName,
        line_number: 0,
        package_name: 'kpm',
        process_id: 0,
        thread_id: 0,
        user_id: 0,
        user_name: t.user,
        application_name: origin.application,
      },
      name: 'ProcessDied',
      inheritance: ['ers::Issue'],
      message: deathMessage(t),
      severity: 'CRITICAL',
      time: `${when}000000`,
      parameters: {
        process: t.name,
        uuid: t.uuid,
        return_code: String(t.exitCode),
        reason: t.reason,
        pod: `${t.namespace}/${t.podName}`,
        // When kpm's watcher saw the end: how long Kubernetes took to tell, and kpm after it.
        observed_at: t.observedAt,
      },
    },
    causes: [],
    session: t.session,
    application: origin.application,
    module: '',
  };
}
