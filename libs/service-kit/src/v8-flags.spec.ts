import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_V8_FLAGS } from './v8-flags';

const deploy = join(__dirname, '..', '..', '..', 'deploy');

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return yamlFiles(path);
    return entry.name.endsWith('.yaml') ? [path] : [];
  });
}

describe('SERVICE_V8_FLAGS', () => {
  const settings = yamlFiles(deploy).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/name: NODE_OPTIONS, value: ([^}]+?) \}/g)].map(
      (match) => [file.slice(deploy.length + 1), match[1]] as const,
    ),
  );

  it('finds the NODE_OPTIONS of every kpm service in deploy/ (base and production sizes)', () => {
    const files = new Set(settings.map(([file]) => file));
    for (const service of ['boot-worker', 'watcher', 'state', 'drunc-gateway']) {
      expect(files).toContain(`base/${service}.yaml`);
    }
    expect(files).toContain('overlays/production/sizes.yaml');
  });

  it('are in every NODE_OPTIONS of deploy/, as `kpm services up` and the benchmarks pass them', () => {
    for (const [file, options] of settings) {
      expect({
        file,
        flags: SERVICE_V8_FLAGS.filter((f) => options.split(' ').includes(f)),
      }).toEqual({ file, flags: SERVICE_V8_FLAGS });
    }
  });
});
