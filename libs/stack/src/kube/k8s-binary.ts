import { ensureGoModuleBuild, type Progress } from './go-build';
import { stackPaths } from '../paths';
import { requiredVersion } from './versions';

/** The Kubernetes binaries we build, each from its wrapper module stack/kube/<name>. */
export type KubernetesBinary =
  'kube-apiserver' | 'kube-scheduler' | 'kube-controller-manager' | 'kubelet';

export function kubernetesModuleDir(name: KubernetesBinary): string {
  return stackPaths.source('kube', name);
}

/** The k8s.io/kubernetes version a wrapper module pins (regenerate with gen-replaces.sh). */
export function kubernetesBinaryVersion(name: KubernetesBinary): string {
  return requiredVersion(kubernetesModuleDir(name), 'k8s.io/kubernetes');
}

/** Builds one Kubernetes binary unless present, with the version stamped in. */
export function ensureKubernetesBinary(
  name: KubernetesBinary,
  progress: Progress,
): Promise<string> {
  const version = kubernetesBinaryVersion(name);
  const [, major, minor] = /^v(\d+)\.(\d+)\./.exec(version) ?? [];
  return ensureGoModuleBuild(
    {
      name,
      version,
      moduleDir: kubernetesModuleDir(name),
      // Without these the binary reports v0.0.0-master, which clients and kwok dislike.
      ldflags: [
        `-X k8s.io/component-base/version.gitVersion=${version}`,
        `-X k8s.io/component-base/version.gitMajor=${major}`,
        `-X k8s.io/component-base/version.gitMinor=${minor}`,
        '-X k8s.io/component-base/version.gitTreeState=clean',
      ],
    },
    progress,
  );
}
