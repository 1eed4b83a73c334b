import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ComponentStatus, StackComponent, StackEnv } from './component';
import { LocalStack } from './local-stack';

/** A part that writes what happens to it into a shared journal. */
class JournalPart implements StackComponent {
  constructor(
    readonly name: string,
    private readonly journal: string[],
    private readonly behaviour: { prepare?: () => Promise<void>; up?: () => Promise<void> } = {},
  ) {}

  async prepare(): Promise<void> {
    this.journal.push(`${this.name} prepare`);
    await this.behaviour.prepare?.();
    this.journal.push(`${this.name} prepared`);
  }

  async up(): Promise<StackEnv> {
    this.journal.push(`${this.name} up`);
    await this.behaviour.up?.();
    return { [`KPM_${this.name.toUpperCase()}`]: 'up' };
  }

  down(): Promise<void> {
    return Promise.resolve();
  }

  status(): Promise<ComponentStatus> {
    return Promise.resolve({ name: this.name, running: true });
  }
}

describe('LocalStack.up', () => {
  const home = process.env.KPM_HOME;
  beforeAll(() => (process.env.KPM_HOME = mkdtempSync(join(tmpdir(), 'kpm-local-stack-'))));
  afterAll(() => (process.env.KPM_HOME = home));

  it('prepares every part at once, and starts each part after its own preparation and the parts before it', async () => {
    const journal: string[] = [];
    let releaseBuild: () => void = () => undefined;
    const build = new Promise<void>((resolve) => (releaseBuild = resolve));
    let kafkaStarting: () => void = () => undefined;
    const kafkaUpCalled = new Promise<void>((resolve) => (kafkaStarting = resolve));
    const stack = new LocalStack([
      new JournalPart('kafka', journal, {
        up: () => {
          kafkaStarting();
          return build;
        },
      }),
      new JournalPart('kube', journal, { prepare: () => build }),
    ]);
    const up = stack.up();
    await kafkaUpCalled;
    // The control plane's build is under way while Kafka starts.
    expect(journal).toEqual(['kafka prepare', 'kube prepare', 'kafka prepared', 'kafka up']);
    releaseBuild();
    await expect(up).resolves.toEqual({ KPM_KAFKA: 'up', KPM_KUBE: 'up' });
    expect(journal.slice(4)).toEqual(['kube prepared', 'kube up']);
  });

  it('reports a failed preparation at its part’s turn, after the parts before it are up', async () => {
    const journal: string[] = [];
    const stack = new LocalStack([
      new JournalPart('kafka', journal),
      new JournalPart('kube', journal, {
        prepare: () => Promise.reject(new Error('kpm: building kubernetes failed (exit 1)')),
      }),
    ]);
    await expect(stack.up()).rejects.toThrow('building kubernetes failed');
    expect(journal).toContain('kafka up');
    expect(journal).not.toContain('kube up');
  });
});
