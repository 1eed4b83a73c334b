/**
 * The topics a jest run creates on the shared local stack, deleted when the run ends. Every
 * suite keeps to a topic prefix of its own (`uniqueTopicPrefix`); without this, a stack that
 * outlives its test runs keeps every run's topics — 10,000 partitions after a day here, two
 * minutes of log recovery each time the broker restarts.
 *
 * global-setup names the run (KPM_TEST_RUN, inherited by the workers); each worker appends the
 * prefixes it makes to the run's file under KPM_HOME; global-teardown deletes the topics of
 * those prefixes alone, so runs sharing the stack (KPM_TEST_STACK=reuse) keep theirs.
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { kpmHome } from '../../libs/stack/src';

const RUN = 'KPM_TEST_RUN';

function runFile(run: string): string {
  return join(kpmHome(), 'test-runs', `${run}.prefixes`);
}

/** Names this jest run once (both projects of one invocation share it). */
export function nameTestRun(): void {
  process.env[RUN] ??= `${Date.now()}-${randomBytes(3).toString('hex')}`;
}

/** Records a prefix of this run; a no-op outside a jest run's workers. */
export function recordTestPrefix(prefix: string): void {
  const run = process.env[RUN];
  if (!run) return;
  const file = runFile(run);
  mkdirSync(join(file, '..'), { recursive: true });
  appendFileSync(file, `${prefix}\n`);
}

/** The prefixes this run recorded, and forgets them. */
export function takeTestPrefixes(): string[] {
  const run = process.env[RUN];
  if (!run || !existsSync(runFile(run))) return [];
  const prefixes = readFileSync(runFile(run), 'utf8').split('\n').filter(Boolean);
  rmSync(runFile(run), { force: true });
  return [...new Set(prefixes)];
}

/** The topics of `all` that belong to one of `prefixes` (kpm's topics are `<prefix>.<id>`). */
export function topicsOfPrefixes(all: readonly string[], prefixes: readonly string[]): string[] {
  const owned = new Set(prefixes);
  return all.filter((topic) => {
    const dot = topic.lastIndexOf('.');
    return dot > 0 && owned.has(topic.slice(0, dot));
  });
}
