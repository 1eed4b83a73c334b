#!/usr/bin/env bash
# The integration suites on one local stack (test/README.md): brought up once, then two streams
# side by side — the heavy suites one at a time, the others two at a time — then the serial
# suites alone. Exits non-zero when any stream failed, after all of them have run.
set -uo pipefail
cd "$(dirname "$0")/.."

npx --no-install kpm stack up || exit 1
export KPM_TEST_STACK=reuse

# Each line of the heavy stream is marked, so the two streams' output can be told apart.
(npx --no-install jest --selectProjects integration-heavy --maxWorkers=1 --forceExit 2>&1 |
  sed -u 's/^/[heavy] /') &
heavy=$!
npx --no-install jest --selectProjects integration --maxWorkers=2 --forceExit
light_rc=$?
wait "$heavy"
heavy_rc=$?

npx --no-install jest --selectProjects integration-serial --runInBand --forceExit
serial_rc=$?

echo "integration: parallel ${light_rc}, heavy ${heavy_rc}, serial ${serial_rc} (0 = passed)"
[ "$light_rc" -eq 0 ] && [ "$heavy_rc" -eq 0 ] && [ "$serial_rc" -eq 0 ]
