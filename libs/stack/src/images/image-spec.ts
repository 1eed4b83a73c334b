/**
 * What an image is made of, as the builder reads it: an optional Debian root filesystem, layers
 * of our files, and the runtime configuration. Everything here is an input of the image's
 * fingerprint: the same spec over the same files gives the same image digest.
 */

/** A Debian root filesystem made by `mmdebstrap` from Debian's packages. */
export interface DebianBase {
  suite: string;
  /** mmdebstrap's package set: `essential` is bash, GNU coreutils and the rest of Essential: yes. */
  variant: 'essential' | 'minbase';
  /** Packages beyond the variant's, e.g. libstdc++6 for Node. */
  include: string[];
}

/** One path of a layer, as it will be in the image. */
export type LayerEntry =
  | { kind: 'file'; path: string; source: string; mode?: number }
  | { kind: 'tree'; path: string; source: string }
  | { kind: 'symlink'; path: string; target: string };

export interface LayerSpec {
  /** Shown in the image's history (created_by) and the build's log. */
  name: string;
  entries: LayerEntry[];
}

/** The OCI runtime configuration (image-spec config.config). */
export interface ImageConfig {
  entrypoint?: string[];
  cmd?: string[];
  user?: string;
  workingDir?: string;
  env?: Record<string, string>;
  exposedPorts?: string[];
  labels?: Record<string, string>;
}

export interface ImageSpec {
  /** The repository part of the local reference: `localhost/<name>:<fingerprint tag>`. */
  name: string;
  base?: DebianBase;
  layers: LayerSpec[];
  config: ImageConfig;
}

/** An image built into the tool cache, ready for `ctr -n k8s.io images import <archive>`. */
export interface BuiltImage {
  /** `localhost/<name>:<tag>`, the name containerd gives it on import (imagePullPolicy Never). */
  reference: string;
  /** The manifest's digest: what containerd reports for the imported image. */
  digest: string;
  /** The config's digest: the image id the kubelet reports (containerStatuses[].imageID). */
  imageId: string;
  archive: string;
  format: 'oci-archive';
  /** Bytes of the compressed layers and config: what the image costs to ship. */
  size: number;
  /** The hash of every input; the tag is its first 16 hex digits. */
  fingerprint: string;
}

/** Every timestamp in an image: fixed, so the same inputs give the same bytes. */
export const IMAGE_EPOCH = 1767225600; // 2026-01-01T00:00:00Z

/** The PATH of Debian's images (and of the official Node image). */
export const DEBIAN_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
