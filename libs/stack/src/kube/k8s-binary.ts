import { ensureGoModuleBinaries, type Progress } from './go-build';
import { stackPaths } from '../paths';
import { requiredVersion } from './versions';

/** The Kubernetes binaries we build, each a main package of the wrapper module stack/kube/kubernetes. */
export const KUBERNETES_BINARIES = [
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'kubelet',
] as const;

export type KubernetesBinary = (typeof KUBERNETES_BINARIES)[number];

export function kubernetesModuleDir(): string {
  return stackPaths.source('kube', 'kubernetes');
}

/** The k8s.io/kubernetes version the wrapper module pins (regenerate with gen-replaces.sh). */
export function kubernetesBinaryVersion(): string {
  return requiredVersion(kubernetesModuleDir(), 'k8s.io/kubernetes');
}

/**
 * Builds every Kubernetes binary in one `go build` unless all are present, with the version
 * stamped in: the four share most of their packages, which one graph compiles once.
 */
export function ensureKubernetesBinaries(progress: Progress): Promise<Record<string, string>> {
  const version = kubernetesBinaryVersion();
  const [, major, minor] = /^v(\d+)\.(\d+)\./.exec(version) ?? [];
  return ensureGoModuleBinaries(
    {
      name: 'kubernetes',
      version,
      moduleDir: kubernetesModuleDir(),
      mains: KUBERNETES_BINARIES,
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

/** One Kubernetes binary's path, built with the others unless present. */
export async function ensureKubernetesBinary(
  name: KubernetesBinary,
  progress: Progress,
): Promise<string> {
  return (await ensureKubernetesBinaries(progress))[name];
}
