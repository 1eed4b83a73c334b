import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { etcdVersion, requiredVersion } from './versions';
import { KUBERNETES_BINARIES, kubernetesBinaryVersion, kubernetesModuleDir } from './k8s-binary';

describe('requiredVersion', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kpm-versions-'));

  it('reads single-line and block requires', () => {
    writeFileSync(
      join(dir, 'go.mod'),
      'module x\n\nrequire k8s.io/kubernetes v1.36.3\n\nrequire (\n\tgo.etcd.io/etcd/server/v3 v3.6.16 // indirect\n)\n',
    );
    expect(requiredVersion(dir, 'k8s.io/kubernetes')).toBe('v1.36.3');
    expect(requiredVersion(dir, 'go.etcd.io/etcd/server/v3')).toBe('v3.6.16');
  });

  it('does not take a replace target for a requirement', () => {
    writeFileSync(
      join(dir, 'go.mod'),
      'module x\n\nreplace (\n\tk8s.io/api => k8s.io/api v0.36.3\n)\n',
    );
    expect(() => requiredVersion(dir, 'k8s.io/api')).toThrow(/does not require k8s.io\/api/);
  });

  it('agrees with the committed wrapper modules', () => {
    expect(etcdVersion()).toMatch(/^v3\.6\.\d+$/);
    expect(kubernetesBinaryVersion()).toMatch(/^v1\.\d+\.\d+$/);
  });

  it('has a main package in the one Kubernetes module for every binary the stack runs', () => {
    const missing = KUBERNETES_BINARIES.filter(
      (binary) => !existsSync(join(kubernetesModuleDir(), binary, 'main.go')),
    );
    expect(missing).toEqual([]);
  });
});
