import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { parse } from 'yaml';
import { runService } from '@kpm/service-kit';
import { repoRoot } from '@kpm/stack';
import { BootWorkerModule } from '../../apps/boot-worker/src/boot-worker.module';
import { StateModule } from '../../apps/state/src/state.module';
import { WatcherModule } from '../../apps/watcher/src/watcher.module';
import { exportedSeries, missingSeries, seriesNamedInRules } from '../support/prometheus';
import { testSettings } from '../support/services';
import { uniqueTopicPrefix } from '../support/stack-env';

/**
 * deploy/prometheus: the alerting and recording rules pass promtool (Debian's prometheus
 * package) and their unit tests, and name only series kpm's three services really export, as
 * their /metrics declare them.
 */

const dir = join(repoRoot(), 'deploy', 'prometheus');
const promtool = (): string =>
  execFileSync(join(repoRoot(), 'scripts', 'debian-package.sh'), ['prometheus', 'promtool'])
    .toString()
    .trim();

describe('Prometheus rules for kpm (deploy/prometheus)', () => {
  const apps: INestApplication[] = [];
  const metrics: string[] = [];

  beforeAll(async () => {
    const prefix = uniqueTopicPrefix('prom');
    const boot = testSettings('boot-worker', prefix);
    apps.push(
      await runService(BootWorkerModule.register(boot), boot, BootWorkerModule.consumer(boot)),
    );
    const watcher = testSettings('watcher', prefix, { KPM_LEASE_NAME: `${prefix}-watcher` });
    apps.push(await runService(WatcherModule.register(watcher), watcher));
    const state = testSettings('state', prefix);
    apps.push(await runService(StateModule.register(state), state, StateModule.consumer(state)));
    for (const app of apps) {
      const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
      metrics.push(await (await fetch(`${url}/metrics`)).text());
    }
  }, 180000);

  afterAll(async () => {
    for (const app of apps.reverse()) await app.close();
  });

  it('pass promtool’s check and its unit tests (kpm-rules.test.yaml)', () => {
    const tool = promtool();
    expect(
      execFileSync(tool, ['check', 'rules', 'kpm-rules.yaml'], { cwd: dir }).toString(),
    ).toMatch(/SUCCESS: \d+ rules found/);
    const tests = execFileSync(tool, ['test', 'rules', 'kpm-rules.test.yaml'], { cwd: dir });
    expect(tests.toString()).toContain('SUCCESS');
  });

  it('name only series the three services export', () => {
    const rules: unknown = parse(readFileSync(join(dir, 'kpm-rules.yaml'), 'utf8'));
    const named = seriesNamedInRules(rules);
    expect(named.length).toBeGreaterThan(10);
    const exported = new Set(metrics.flatMap((text) => exportedSeries(text)));
    expect(missingSeries(named, exported)).toEqual([]);
  });

  it('would report a series no service exports', () => {
    const exported = new Set(metrics.flatMap((text) => exportedSeries(text)));
    const rules = {
      groups: [{ rules: [{ alert: 'X', expr: 'rate(kpm_made_up_total[5m]) > up' }] }],
    };
    expect(missingSeries(seriesNamedInRules(rules), exported)).toEqual(['kpm_made_up_total']);
  });
});
