import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { SERVICE_V8_FLAGS } from './v8-flags';

const deploy = join(__dirname, '..', '..', '..', 'deploy');

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return yamlFiles(path);
    return entry.name.endsWith('.yaml') ? [path] : [];
  });
}

interface Container {
  command?: string[];
  env?: Array<{ name: string; value?: string }>;
}

/** Every container of every Deployment in deploy/, with the file it is in. */
function containers(): Array<{ file: string; container: Container }> {
  return yamlFiles(deploy).flatMap((path) =>
    parseAllDocuments(readFileSync(path, 'utf8')).flatMap((doc) => {
      const object = doc.toJS() as {
        spec?: { template?: { spec?: { containers?: Container[] } } };
      };
      const file = path.slice(deploy.length + 1);
      return (object?.spec?.template?.spec?.containers ?? []).map((container) => ({
        file,
        container,
      }));
    }),
  );
}

describe('SERVICE_V8_FLAGS', () => {
  const all = containers();
  const commands = all.flatMap(({ file, container }) =>
    container.command?.[0] === 'node' ? [[file, container.command.slice(1)] as const] : [],
  );
  const nodeOptions = all.flatMap(({ file, container }) =>
    (container.env ?? [])
      .filter((variable) => variable.name === 'NODE_OPTIONS')
      .map((variable) => [file, (variable.value ?? '').split(' ')] as const),
  );

  it('finds the command of every kpm service in deploy/base', () => {
    const entries = commands.map(([file, args]) => `${file}: ${args[args.length - 1]}`).sort();
    expect(entries).toEqual(
      ['boot-worker', 'drunc-gateway', 'state', 'watcher'].map(
        (service) => `base/${service}.yaml: dist/apps/${service}/src/main.js`,
      ),
    );
  });

  it('are every command’s flags before its entry, as `kpm services up` and the benchmarks pass them', () => {
    for (const [file, args] of commands) {
      expect({ file, flags: args.slice(0, -1) }).toEqual({ file, flags: SERVICE_V8_FLAGS });
    }
  });

  it('leave NODE_OPTIONS the heap’s cap alone (it refuses --optimize-for-size)', () => {
    expect(nodeOptions.map(([file]) => file)).toEqual(
      expect.arrayContaining(['base/state.yaml', 'overlays/production/sizes.yaml']),
    );
    for (const [file, options] of nodeOptions) {
      expect({ file, options }).toEqual({
        file,
        options: [expect.stringMatching(/^--max-old-space-size=\d+$/)],
      });
    }
  });
});
