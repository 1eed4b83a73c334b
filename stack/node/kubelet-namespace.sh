#!/bin/sh
# Starts the real node's kubelet in a mount namespace of its own (`unshare --mount --propagation
# unchanged` runs this script), where the kernel tunables it insists on setting are files of
# ours: the host keeps its own values.
#
#   kubelet-namespace.sh SYSCTL_DIR KUBELET [ARGS...]
#
# SYSCTL_DIR holds one file per tunable, named with dots for slashes (vm.overcommit_memory)
# and holding the value the kubelet wants, so it reads that value and writes nothing. /proc is
# made private in this namespace first, so the bind mounts never propagate to the host's /proc.
# Everything else keeps the host's propagation: the kubelet's root directory is a shared mount,
# and the volumes it mounts there (projected tokens, memory-backed emptyDirs) reach containerd.
set -eu
sysctl_dir=$1
shift
mount --make-rprivate /proc
for file in "$sysctl_dir"/*; do
  mount --bind "$file" "/proc/sys/$(basename "$file" | tr . /)"
done
exec "$@"
