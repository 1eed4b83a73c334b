import { KubeClientDaemon, type KubeClientDaemonOptions } from './kube-client-daemon';

/** kube-scheduler: binds pods that name no node (e.g. only a nodeSelector) to the kwok nodes. */
export class SchedulerComponent extends KubeClientDaemon {
  constructor(options: KubeClientDaemonOptions) {
    super('kube-scheduler', options);
  }

  protected args(): string[] {
    return [];
  }
}
