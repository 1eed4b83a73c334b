/** The environment the `OTEL_*` variables are read from (process.env, or a test's). */
export type Env = Record<string, string | undefined>;
