/**
 * The labels, annotations and finalizer kpm puts on what it creates (docs/design.md §6.1), under
 * one configurable domain (drunc's `drunc_label`, default `drunc.daq`).
 */
export class KpmLabels {
  readonly creator: string;
  readonly uuid: string;
  readonly session: string;
  readonly treeId: string;
  readonly role: string;
  readonly user: string;
  readonly app = 'app';
  /** Set at pod creation; removed by the watcher only after the termination is on Kafka. */
  readonly terminationFinalizer: string;
  /** The ProcessSpec as JSON, so restart can rebuild the pod. */
  readonly specAnnotation: string;
  readonly commandAnnotation: string;
  /** drunc's name of the process, exactly as given (its pod's name derives from it). */
  readonly nameAnnotation: string;
  /** The `traceparent` of the command that created the pod, for its termination record. */
  readonly traceAnnotation: string;

  constructor(readonly domain: string = 'drunc.daq') {
    this.creator = `creator.${domain}`;
    this.uuid = `uuid.${domain}`;
    this.session = `session.${domain}`;
    this.treeId = `tree-id.${domain}`;
    this.role = `role.${domain}`;
    this.user = `user.${domain}`;
    this.terminationFinalizer = `${domain}/termination-record`;
    this.specAnnotation = `${domain}/process-spec`;
    this.commandAnnotation = `${domain}/command-id`;
    this.nameAnnotation = `${domain}/process-name`;
    this.traceAnnotation = `${domain}/traceparent`;
  }

  /** Every selector kpm uses starts here: a query can never reach an object kpm did not create. */
  creatorSelector(extra: Record<string, string> = {}): string {
    return Object.entries({ [this.creator]: 'kpm', ...extra })
      .map(([key, value]) => `${key}=${value}`)
      .join(',');
  }

  sessionSelector(session: string): string {
    return this.creatorSelector({ [this.session]: session });
  }

  uuidSelector(uuid: string): string {
    return this.creatorSelector({ [this.uuid]: uuid });
  }

  isOurs(labels: Record<string, string> | undefined): boolean {
    return labels?.[this.creator] === 'kpm';
  }

  /** kpm writes only objects it can recognise later as its own: refuse anything else. */
  requireOurs(kind: string, object: { metadata?: { labels?: Record<string, string> } }): void {
    if (!this.isOurs(object.metadata?.labels)) {
      throw new Error(`kpm creates only ${kind} carrying its creator label`);
    }
  }
}
