/** One part of the local stack (Kafka, etcd, kube-apiserver, kwok …), provisioned on first use. */
export interface StackComponent {
  readonly name: string;
  /**
   * Fetches and builds what `up` needs without starting anything. `LocalStack.up` starts every
   * part's prepare at once, so a part's builds run while the parts before it start; `up` then
   * awaits the same work instead of repeating it.
   */
  prepare?(): Promise<void>;
  /** Installs what is missing, starts the component if it is not running, waits until it is ready. */
  up(): Promise<StackEnv>;
  /** Stops the component; a component that is not running is fine. */
  down(): Promise<void>;
  status(): Promise<ComponentStatus>;
}

/** Variables a component contributes to `.kpm/stack.env` (e.g. KPM_KAFKA_BROKERS, KUBECONFIG). */
export type StackEnv = Record<string, string>;

export interface ComponentStatus {
  name: string;
  running: boolean;
  pid?: number;
  endpoint?: string;
  detail?: string;
}
