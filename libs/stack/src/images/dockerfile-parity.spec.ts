import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from '../paths';
import { KPM_IMAGE, kpmImageSpec } from './kpm-image';

/**
 * deploy/Dockerfile (for sites with Docker) and the engine-free build (kpm-image.ts) describe the
 * same image: base, Node version, user, working directory, environment, port, command and files.
 */

interface Instruction {
  keyword: string;
  args: string;
}

function dockerfile(): Instruction[] {
  const text = readFileSync(join(repoRoot(), 'deploy', 'Dockerfile'), 'utf8');
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

/** The instructions of the last stage: the image that ships. */
function finalStage(): Instruction[] {
  const all = dockerfile();
  const lastFrom = all.map((i) => i.keyword).lastIndexOf('FROM');
  return all.slice(lastFrom);
}

function only(stage: Instruction[], keyword: string): string {
  const found = stage.filter((i) => i.keyword === keyword);
  expect(found).toHaveLength(1);
  return found[0].args;
}

/** Fake inputs: the spec only names files, so empty ones of the right shape serve. */
function fakeInputs(root: string): { nodeRuntime: string; modules: string; dist: string } {
  const path = (...parts: string[]): string => join(root, ...parts);
  mkdirSync(path('node', 'bin'), { recursive: true });
  writeFileSync(path('node', 'bin', 'node'), '');
  writeFileSync(path('node', 'LICENSE'), '');
  mkdirSync(path('modules', 'node_modules'), { recursive: true });
  for (const service of KPM_IMAGE.services) {
    mkdirSync(path('dist', 'apps', service, 'src'), { recursive: true });
  }
  mkdirSync(path('dist', 'libs'), { recursive: true });
  return { nodeRuntime: path('node'), modules: path('modules'), dist: path('dist') };
}

describe('deploy/Dockerfile and the engine-free kpm image', () => {
  const root = mkdtempSync(join(tmpdir(), 'kpm-parity-'));
  const spec = kpmImageSpec(fakeInputs(root));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('have the same base: Debian of the same suite, Node at the same version', () => {
    const arg = dockerfile().find((i) => i.keyword === 'ARG' && i.args.startsWith('NODE_IMAGE='));
    expect(arg?.args).toBe(`NODE_IMAGE=node:${KPM_IMAGE.nodeVersion}-${KPM_IMAGE.suite}-slim`);
    expect(only(finalStage(), 'FROM')).toBe('${NODE_IMAGE}');
    expect(spec.base?.suite).toBe(KPM_IMAGE.suite);
    expect(spec.config.env?.NODE_VERSION).toBe(KPM_IMAGE.nodeVersion);
  });

  it('run as the same numeric user, in the same directory, with the same environment', () => {
    const stage = finalStage();
    expect(only(stage, 'USER')).toBe(KPM_IMAGE.user);
    expect(spec.config.user).toBe(KPM_IMAGE.user);
    expect(only(stage, 'WORKDIR')).toBe(KPM_IMAGE.workingDir);
    expect(spec.config.workingDir).toBe(KPM_IMAGE.workingDir);
    const env = Object.fromEntries(
      stage.filter((i) => i.keyword === 'ENV').map((i) => i.args.split('=')),
    );
    expect(env).toEqual(KPM_IMAGE.env);
    expect(spec.config.env).toMatchObject(KPM_IMAGE.env);
  });

  it('have the same command and port, and no entrypoint of their own', () => {
    const stage = finalStage();
    expect(JSON.parse(only(stage, 'CMD'))).toEqual(KPM_IMAGE.cmd);
    expect(spec.config.cmd).toEqual(KPM_IMAGE.cmd);
    expect(stage.some((i) => i.keyword === 'ENTRYPOINT')).toBe(false);
    expect(spec.config.entrypoint).toBeUndefined();
    expect(`${only(stage, 'EXPOSE')}/tcp`).toBe(KPM_IMAGE.exposedPorts[0]);
    expect(spec.config.exposedPorts).toEqual(KPM_IMAGE.exposedPorts);
  });

  it('hold the same files under the working directory, built for the same services', () => {
    const copied = finalStage()
      .filter((i) => i.keyword === 'COPY')
      .map((i) => /--from=build \/kpm\/(\S+) /.exec(i.args)?.[1]);
    expect(copied.sort()).toEqual([...KPM_IMAGE.files].sort());
    const paths = spec.layers.flatMap((layer) => layer.entries.map((entry) => entry.path));
    const underWork = paths
      .filter((path) => path.startsWith(`${KPM_IMAGE.workingDir}/`))
      .map((path) => path.slice(KPM_IMAGE.workingDir.length + 1).split('/')[0]);
    expect([...new Set(underWork)].sort()).toEqual([...KPM_IMAGE.files].sort());
    const built = dockerfile()
      .filter((i) => i.keyword === 'RUN')
      .flatMap((i) => [...i.args.matchAll(/nest build (\S+)/g)].map((m) => m[1]));
    expect(built).toEqual([...KPM_IMAGE.services]);
    for (const service of KPM_IMAGE.services) {
      expect(paths).toContain(`${KPM_IMAGE.workingDir}/dist/apps/${service}`);
    }
  });

  it('start each Deployment of the kit as its service, as the image’s user', () => {
    for (const service of KPM_IMAGE.services) {
      const file = join(repoRoot(), 'deploy', 'base', `${service}.yaml`);
      const deployment = parseAllDocuments(readFileSync(file, 'utf8'))
        .map((doc) => doc.toJS() as { kind: string; spec: DeploymentSpec })
        .find((doc) => doc.kind === 'Deployment');
      const pod = deployment!.spec.template.spec;
      // `node`, V8's flags (held to their list by libs/service-kit's v8-flags.spec), the entry.
      const command: string[] = pod.containers[0].command;
      expect([command[0], command[command.length - 1]]).toEqual([
        'node',
        `dist/apps/${service}/src/main.js`,
      ]);
      expect(command.slice(1, -1).every((arg) => arg.startsWith('--'))).toBe(true);
      expect(`${pod.securityContext.runAsUser}:${pod.securityContext.runAsGroup}`).toBe(
        KPM_IMAGE.user,
      );
    }
  });
});

interface DeploymentSpec {
  template: {
    spec: {
      securityContext: { runAsUser: number; runAsGroup: number };
      containers: { command: string[] }[];
    };
  };
}
