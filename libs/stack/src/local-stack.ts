import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ComponentStatus, StackComponent, StackEnv } from './component';
import { stackPaths } from './paths';

/**
 * The embedded local stack: components prepared side by side (their downloads and builds), brought
 * up in order (Kafka, the control plane, the real node), torn down in reverse, with their
 * variables collected in `.kpm/stack.env`.
 */
export class LocalStack {
  constructor(private readonly components: readonly StackComponent[]) {}

  async up(onProgress: (message: string) => void = () => undefined): Promise<StackEnv> {
    const env: StackEnv = {};
    const prepared = this.prepareAll();
    for (const [index, component] of this.components.entries()) {
      await prepared[index];
      const started = Date.now();
      onProgress(`${component.name}: starting`);
      Object.assign(env, await component.up());
      onProgress(`${component.name}: ready in ${Date.now() - started} ms`);
    }
    writeStackEnv(env);
    return env;
  }

  /**
   * Every part's downloads and builds, started together (a fresh machine spends most of its first
   * `up` compiling). A failure surfaces when its part's turn comes, after the parts before it.
   */
  private prepareAll(): Promise<void>[] {
    return this.components.map((component) => {
      const prepared = component.prepare ? component.prepare() : Promise.resolve();
      prepared.catch(() => undefined); // awaited in turn; not an unhandled rejection meanwhile
      return prepared;
    });
  }

  async down(): Promise<void> {
    for (const component of [...this.components].reverse()) await component.down();
  }

  status(): Promise<ComponentStatus[]> {
    return Promise.all(this.components.map((component) => component.status()));
  }
}

export function writeStackEnv(env: StackEnv): void {
  const file = stackPaths.envFile();
  mkdirSync(dirname(file), { recursive: true });
  const lines = Object.entries(env).map(([name, value]) => `${name}=${value}`);
  writeFileSync(file, `${lines.join('\n')}\n`);
}

/** Reads `.kpm/stack.env`; an absent file is an empty environment. */
export function readStackEnv(file: string = stackPaths.envFile()): StackEnv {
  if (!existsSync(file)) return {};
  const env: StackEnv = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (match) env[match[1]] = match[2];
  }
  return env;
}
