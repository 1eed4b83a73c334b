/**
 * V8 flags every kpm service runs with, on `node`'s command line before its entry: in the
 * `command` of its Deployment (deploy/base), under `kpm services up` and in the benchmarks (a
 * unit test holds deploy/ to this list). Not in `NODE_OPTIONS`, which refuses
 * `--optimize-for-size`; the Deployments' `NODE_OPTIONS` holds only the heap's cap, which differs
 * by size.
 *
 * `--max-semi-space-size=4`: a young generation of at most 2 × 4 MiB. V8 grows it to 2 × 16 MiB
 * while a service starts (loading its modules keeps most of what it allocates) and never gives
 * it back, so every idle service held 24 MiB more than it needed. Measured compiled, idle:
 * boot-worker 118 → 104 MB, watcher 116 → 80 MB, state 122 → 113 MB. The price is more
 * scavenges when a service allocates fast: a state replay of 40,002 records (bench/replay.ts)
 * ran about 20 % slower, which a restore pays only for the records after its last snapshot.
 *
 * `--optimize-for-size`: V8 grows the old generation's reserve by a smaller factor and compacts
 * it sooner. Without it, over `bench:soak`'s 30 minutes the state's reserved heap grew 69 → 83 MB
 * while the heap in use stayed 46–52 MB, all of the state's RSS growth (+9.6 %); with it the
 * reserve follows what is in use (bench/README.md "Over time" has both runs).
 */
export const SERVICE_V8_FLAGS: readonly string[] = [
  '--max-semi-space-size=4',
  '--optimize-for-size',
];
