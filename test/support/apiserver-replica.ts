import { eventually } from '@kpm/common';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { Daemon } from '@kpm/stack';
import { freePort } from './service-process';
import { stackEnv } from './stack-env';

/**
 * A second kube-apiserver on the stack's etcd — an HA control plane's other replica — started
 * with the running one's flags plus `extraArgs` (e.g. `--watch-cache=false`, so watches are
 * served from etcd and feel its compaction). Stopped by the test.
 */
export class ApiServerReplica {
  private child?: ChildProcess;
  private output = '';
  port = 0;

  constructor(private readonly extraArgs: string[] = []) {}

  async start(timeoutMs = 120_000): Promise<this> {
    const pid = new Daemon('kube-apiserver').pid();
    if (!pid) throw new Error('the stack kube-apiserver is not running');
    const [binary, ...args] = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter(Boolean);
    this.port = await freePort();
    const own = args
      .filter((arg) => !this.extraArgs.some((extra) => arg.split('=')[0] === extra.split('=')[0]))
      .map((arg) => (arg.startsWith('--secure-port=') ? `--secure-port=${this.port}` : arg));
    this.child = spawn(binary, [...own, ...this.extraArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (chunk: Buffer) => (this.output = (this.output + chunk.toString()).slice(-20_000));
    this.child.stdout?.on('data', keep);
    this.child.stderr?.on('data', keep);
    const child = this.child;
    await eventually(() => this.ready(), {
      what: 'the kube-apiserver replica ready',
      timeoutMs,
      everyMs: 500,
      failFast: () =>
        child.exitCode === null
          ? undefined
          : new Error(`kube-apiserver replica exited:\n${this.output}`),
    }).catch((error: Error) => {
      throw new Error(`${error.message}\n${this.output.slice(-3000)}`);
    });
    return this;
  }

  get target(): { host: string; port: number } {
    return { host: '127.0.0.1', port: this.port };
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }

  private async ready(): Promise<boolean> {
    const config = new KubeConfig();
    config.loadFromFile(stackEnv().kubeconfig!);
    const cluster = config.getCurrentCluster()!;
    const user = config.getCurrentUser();
    const ca = cluster.caData ? Buffer.from(cluster.caData, 'base64') : undefined;
    return new Promise((resolve) => {
      const call = request(
        {
          host: '127.0.0.1',
          port: this.port,
          path: '/readyz',
          agent: new Agent({ ca }),
          headers: user?.token ? { authorization: `Bearer ${user.token}` } : {},
          timeout: 2_000,
        },
        (response) => {
          response.resume();
          resolve(response.statusCode === 200);
        },
      );
      call.on('error', () => resolve(false));
      call.on('timeout', () => call.destroy());
      call.end();
    });
  }
}
