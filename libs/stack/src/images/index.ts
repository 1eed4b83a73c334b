export * from './image-spec';
export { buildImage } from './oci-image';
export { ensureDebianRootfs, debianMirror, type DebianRootfs } from './debian-rootfs';
export { ensureStaticGoBinary } from './go-static';
export * from './node-images';
export * from './kpm-image';
export * from './containerd-import';
