/**
 * V8 flags every kpm service runs with: in `NODE_OPTIONS` of its Deployment (deploy/), under
 * `kpm services up` and in the benchmarks (a unit test holds deploy/ to this list).
 *
 * `--max-semi-space-size=4`: a young generation of at most 2 × 4 MiB. V8 grows it to 2 × 16 MiB
 * while a service starts (loading its modules keeps most of what it allocates) and never gives
 * it back, so every idle service held 24 MiB more than it needed. Measured compiled, idle:
 * boot-worker 118 → 104 MB, watcher 116 → 80 MB, state 122 → 113 MB. The price is more
 * scavenges when a service allocates fast: a state replay of 40,002 records (bench/replay.ts)
 * ran about 20 % slower, which a restore pays only for the records after its last snapshot.
 */
export const SERVICE_V8_FLAGS: readonly string[] = ['--max-semi-space-size=4'];
