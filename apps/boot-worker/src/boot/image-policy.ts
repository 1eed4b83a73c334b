/**
 * The configured image allow-list (`podManagement.allowedImages`): an entry is an exact image
 * reference, or a prefix ending in `*` (`ghcr.io/dune-daq/*`); `*` alone allows every image.
 */
export function imageAllowed(image: string, allowList: readonly string[]): boolean {
  return allowList.some((entry) =>
    entry.endsWith('*') ? image.startsWith(entry.slice(0, -1)) : image === entry,
  );
}
