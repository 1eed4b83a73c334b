import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Daemon } from '../daemon';
import { startOrRestart } from '../kube/daemon-start';
import type { Progress } from '../kube/go-build';
import { runCommand } from '../run-command';
import { WaitAborted, waitFor } from '../wait';
import { cniConfig, containerdConfig } from './node-config';
import type { NodeLayout } from './node-layout';

/** containerd (Debian's package) as the real node's runtime, with its own root, state and socket. */
export class Containerd {
  readonly daemon = new Daemon('containerd');

  constructor(
    private readonly layout: NodeLayout,
    private readonly progress: Progress,
  ) {}

  /** Writes its configuration and the CNI network's, starts it (or keeps it), waits until it answers. */
  async start(sandboxImage: string): Promise<void> {
    const { layout } = this;
    for (const dir of [layout.containerdRoot, layout.containerdState, layout.cniConfDir]) {
      mkdirSync(dir, { recursive: true });
    }
    mkdirSync(dirname(layout.containerdSocket), { recursive: true });
    const config = containerdConfig(layout, sandboxImage);
    const network = cniConfig(layout);
    writeFileSync(layout.containerdConfig, config);
    writeFileSync(join(layout.cniConfDir, '10-kpm.conflist'), network);
    await startOrRestart(
      this.daemon,
      'containerd',
      ['--config', layout.containerdConfig],
      this.progress,
      [config, network],
    );
    await waitFor('containerd', () => this.answers(), {
      timeoutMs: 30000,
      intervalMs: 200,
      onTimeout: () => this.daemon.tail(),
    });
  }

  /** Whether it runs and answers on its socket. */
  async answers(): Promise<boolean> {
    if (!this.daemon.isRunning())
      throw new WaitAborted(`kpm: containerd exited\n${this.daemon.tail()}`);
    await this.ctr(['version']);
    return true;
  }

  /** Imports an image archive into the CRI's namespace, unpacked, where the kubelet finds it. */
  async importImage(archive: string): Promise<void> {
    await this.ctr(['images', 'import', archive]);
  }

  /** The image references containerd holds for the kubelet. */
  async images(): Promise<string[]> {
    const output = await this.ctr(['images', 'list', '--quiet']);
    return output.split('\n').filter(Boolean);
  }

  private ctr(args: string[]): Promise<string> {
    const address = ['--address', this.layout.containerdSocket, '--namespace', 'k8s.io'];
    return runCommand('ctr', [...address, ...args], {
      timeoutMs: 120000,
      installHint: 'scripts/debian-package.sh containerd',
    });
  }
}
