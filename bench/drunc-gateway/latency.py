"""Latency of each drunc ProcessManager RPC through kpm's drunc gateway, for a session of N
processes, measured from the client's side of drunc's calls (driver.py makes them as drunc's
ProcessManagerDriver does). Prints one JSON document: {N: {rpc: {calls, median_ms, max_ms}}}.

    python latency.py --sizes 1,100   (KPM_DRUNC_GATEWAY, KPM_TEST_SESSION, KPM_TEST_USER,
                                       KPM_TEST_NODES as for the Python suite)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

SUITE = Path(__file__).resolve().parents[2] / "test" / "support" / "python" / "drunc_gateway"
sys.path.insert(0, str(SUITE))

from conftest import _generate_stubs  # noqa: E402

STUBS = Path(os.environ.get("TMPDIR", "/tmp")) / f"kpm-drunc-bench-stubs-{os.getpid()}"
STUBS.mkdir(parents=True, exist_ok=True)
_generate_stubs(STUBS)
sys.path.insert(0, str(STUBS))

from druncschema import process_manager_pb2 as pm  # noqa: E402

from driver import ProcessManagerDriver, query  # noqa: E402
from dune_session import flat_session  # noqa: E402


def one_session(driver: ProcessManagerDriver, user: str, session: str, nodes: list[str], n: int) -> None:
    driver.describe()
    booted = [driver.boot(r).values[0] for r in flat_session(user, session, nodes, n)]
    driver.ps(query(names=[".*"], session=session))
    driver.ps(query(user=user, session=session))
    driver.logs(pm.LogRequest(query=query(uuids=[booted[0].uuid.uuid]), how_far=100))
    driver.restart(query(uuids=[booted[0].uuid.uuid]))
    driver.kill(query(names=[f"^{booted[-1].process_description.metadata.name}$"], session=session))
    driver.flush(query(names=[".*"], session=session))
    driver.terminate()
    assert driver.ps(query(user=user, session=session)).values == []


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1,100")
    args = parser.parse_args()
    address = os.environ["KPM_DRUNC_GATEWAY"].removeprefix("grpc://")
    user, base = os.environ["KPM_TEST_USER"], os.environ["KPM_TEST_SESSION"]
    nodes = os.environ["KPM_TEST_NODES"].split(",")
    out: dict[str, dict] = {}
    for n in (int(s) for s in args.sizes.split(",")):
        driver = ProcessManagerDriver(address, user)
        try:
            one_session(driver, user, f"{base}-{n}", nodes, n)
        finally:
            driver.close()
        by_rpc: dict[str, list[float]] = {}
        for rpc, seconds in driver.latencies:
            by_rpc.setdefault(rpc, []).append(seconds * 1000)
        out[str(n)] = {
            rpc: {"calls": len(ms), "median_ms": round(statistics.median(ms), 1), "max_ms": round(max(ms), 1)}
            for rpc, ms in by_rpc.items()
        }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
