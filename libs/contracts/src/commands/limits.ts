/** Upper bounds on command fields: generous for a DAQ, small enough to refuse nonsense early. */
export const LIMITS = {
  /** docs/design.md §4: a boot carries 1–5000 processes. */
  maxProcessesPerBoot: 5000,
  maxCommandsPerProcess: 64,
  maxArgsPerCommand: 1000,
  maxStringLength: 4096,
  maxAllowedHosts: 100,
  maxQueryUuids: 5000,
  maxQueryNames: 100,
  /** One hour: a DAQ process that needs longer to stop is stuck, not stopping. */
  maxGracePeriodSeconds: 3600,
  /** One day: a command that has not completed by then never will. */
  maxTimeoutSeconds: 86400,
  /** ps answers in pages (docs/design.md §6.6): at most this many processes per page. */
  defaultPsLimit: 1000,
  maxPsLimit: 10000,
  defaultTailLines: 100,
  maxTailLines: 10000,
} as const;
