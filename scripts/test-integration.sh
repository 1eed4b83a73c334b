#!/usr/bin/env bash
# The integration suites on one local stack (test/README.md), in three phases: the suites that
# share it lightly three at a time, then the heavy ones two at a time, then the serial ones
# alone. Every phase runs; the exit status says whether all of them passed. The stack comes up
# with its OpenTelemetry Collector (KPM_STACK_OTEL=1), so that suites can read the spans kpm's
# services send; KPM_STACK_OTEL=0 leaves it out. Kueue runs beside the API server
# (KPM_STACK_KUEUE=1) for the suite of kpm's Kueue pod groups; KPM_STACK_KUEUE=0 leaves it out.
set -uo pipefail
cd "$(dirname "$0")/.."
export KPM_STACK_OTEL="${KPM_STACK_OTEL:-1}"
export KPM_STACK_KUEUE="${KPM_STACK_KUEUE:-1}"

run() { npx --no-install jest --selectProjects "$@" --forceExit; }

run integration --maxWorkers=3
light=$?
run integration-heavy --maxWorkers=2
heavy=$?
run integration-serial --runInBand
serial=$?

echo "integration: parallel ${light}, heavy ${heavy}, serial ${serial} (0 = passed)"
[ "$light" -eq 0 ] && [ "$heavy" -eq 0 ] && [ "$serial" -eq 0 ]
