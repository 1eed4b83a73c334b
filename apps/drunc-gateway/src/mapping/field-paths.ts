/**
 * kpm names a refused field by its own path (`processes[0].restriction.dataMount`,
 * `query.names[1]`); a drunc client knows its message's fields. Each kpm path becomes the path of
 * the drunc field it came from, so a refusal names what the caller sent.
 */

/** First match wins; `$1`… are the regex groups. */
const BOOT_PATHS: Array<[RegExp, string]> = [
  [/^processes\[0\]\.name/, 'process_description.metadata.name'],
  [/^processes\[0\]\.uuid/, 'process_description.metadata.uuid'],
  [/^processes\[0\]\.treeId/, 'process_description.metadata.tree_id'],
  [
    /^processes\[0\]\.executableAndArguments(.*)$/,
    'process_description.executable_and_arguments$1',
  ],
  [/^processes\[0\]\.env(.*)$/, 'process_description.env$1'],
  [/^processes\[0\]\.executionDirectory/, 'process_description.process_execution_directory'],
  [/^processes\[0\]\.logFile/, 'process_description.process_logs_path'],
  [/^processes\[0\]\.restriction\.allowedHosts(.*)$/, 'process_restriction.allowed_hosts$1'],
  [/^processes\[0\]\.restriction\.dataMount/, 'process_restriction.data_mount'],
  [/^processes\[0\]\.restriction/, 'process_restriction'],
  [/^processes(\[0\])?$/, 'process_description'],
  [/^processes\[0\]\.(.*)$/, 'process_description.$1'],
  [/^session$/, 'process_description.metadata.session'],
  [/^user$/, 'token.user_name'],
];

const QUERY_PATHS: Array<[RegExp, string]> = [
  [/^query\.uuids(\[\d+\])?$/, 'uuids$1'],
  [/^query\.(names|session|user)(.*)$/, '$1$2'],
  [/^query$/, 'uuids, names, user, session'],
  [/^tailLines$/, 'how_far'],
  [/^user$/, 'token.user_name'],
  [/^session$/, 'session'],
];

function translate(table: Array<[RegExp, string]>, path: string | undefined): string {
  if (!path) return '';
  for (const [pattern, replacement] of table) {
    // The tail a pattern keeps ($1: an index, an env variable's name) is the caller's own text.
    if (pattern.test(path)) return path.replace(pattern, replacement);
  }
  return snake(path);
}

function snake(path: string): string {
  return path.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

export const bootFieldPath = (path?: string) => translate(BOOT_PATHS, path);
export const queryFieldPath = (path?: string) => translate(QUERY_PATHS, path);
