"""Latency of each drunc ProcessManager RPC through kpm's drunc gateway, in one wire era, for a
session of N processes, measured from the client's side of drunc's calls (each era's driver.py
makes them as drunc's driver of that era does). Prints one JSON document:
{N: {rpc: {calls, median_ms, p99_ms, max_ms}, "session": {boot_calls_ms, all_running_ms,
boot_windows_ms}}}:
the session's boot calls one after the other as drunc's driver sends them, from the first call
to the last answer, and to the first ps that shows every process RUNNING, and each boot call's
send and answer in ms since the epoch.

    python latency.py --era current|enveloped --sizes 1,200   (KPM_DRUNC_GATEWAY,
        KPM_TEST_SESSION, KPM_TEST_USER, KPM_TEST_NODES as for the Python suites)

Per session: describe, ps and logs 20 times each, one boot per process, restart and kill of up to
5 processes (one uuid a call), flush 5 times, one terminate.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SUITES = ROOT / "test" / "support" / "python"
REPEAT = 20
ACTIONS = 5


def load(era: str) -> None:
    """Puts the era's driver on the path and the stubs generated from its protos."""
    suite = SUITES / ("drunc_gateway" if era == "current" else "drunc_enveloped")
    sys.path.insert(0, str(SUITES))
    sys.path.insert(0, str(suite))
    from drunc_fixtures import install_stubs

    protos = ROOT / "apps" / "drunc-gateway" / "proto"
    install_stubs(protos if era == "current" else protos / "enveloped", f"kpm-drunc-bench-{era}-stubs")


def current_session(address: str, user: str, session: str, nodes: list[str], n: int):
    from druncschema import process_manager_pb2 as pm
    from driver import ProcessManagerDriver, query
    from dune_session import flat_session

    driver = ProcessManagerDriver(address, user)
    try:
        for _ in range(REPEAT):
            driver.describe()
        started = time.perf_counter()
        booted, windows = [], []
        for r in flat_session(user, session, nodes, n):
            sent = time.time()
            booted.append(driver.boot(r).values[0])
            windows.append(call_window(sent))
        totals = session_totals(started, lambda: driver.ps(query(session=session)).values,
                                driver.latencies, n, pm)
        totals["boot_windows_ms"] = windows
        for _ in range(REPEAT):
            driver.ps(query(names=[".*"], session=session))
            driver.logs(pm.LogRequest(query=query(uuids=[booted[0].uuid.uuid]), how_far=100))
        for p in booted[:ACTIONS]:
            driver.restart(query(uuids=[p.uuid.uuid]))
        for p in booted[-ACTIONS:]:
            driver.kill(query(uuids=[p.uuid.uuid]))
        for _ in range(ACTIONS):
            driver.flush(query(names=[".*"], session=session))
        driver.terminate()
        assert driver.ps(query(user=user, session=session)).values == []
        return driver.latencies, totals
    finally:
        driver.close()


def enveloped_session(address: str, user: str, session: str, nodes: list[str], n: int):
    from druncschema import process_manager_pb2 as pm
    from driver import ProcessManagerDriver, boot_request, query

    driver = ProcessManagerDriver(address, user)
    for _ in range(REPEAT):
        assert driver.describe().ok
    requests = [boot_request(user, session, nodes[i % len(nodes)], f"app-{i:03d}",
                             [("daq_application", ["--name", f"app-{i:03d}"])], tree_id=f"0.1.{i}")
                for i in range(n)]
    booted, windows = [], []
    started = time.perf_counter()
    for r in requests:
        sent = time.time()
        answer = driver.boot(r)
        windows.append(call_window(sent))
        assert answer.ok, answer.text
        booted.append(answer.data)
    totals = session_totals(started, lambda: driver.ps(query(session=session)).data.values,
                            driver.latencies, n, pm)
    totals["boot_windows_ms"] = windows
    for _ in range(REPEAT):
        assert driver.ps(pm.ProcessQuery(names=[".*"])).ok
        driver.logs(pm.LogRequest(query=query(uuids=[booted[0].uuid.uuid]), how_far=100))
    for p in booted[:ACTIONS]:
        assert driver.restart(query(uuids=[p.uuid.uuid])).ok
    for p in booted[-ACTIONS:]:
        assert driver.kill(query(uuids=[p.uuid.uuid])).ok
    for _ in range(ACTIONS):
        assert driver.flush(query(names=[".*"], session=session)).ok
    assert driver.terminate(query()).ok
    assert driver.ps(query(user=user, session=session)).data.values == []
    return driver.latencies, totals


def call_window(sent: float) -> list[float]:
    """A call's send and answer, ms since the epoch: the bench lines them up with the command's
    records on Kafka (their CreateTime), so where a boot call's time goes is read per step."""
    return [round(sent * 1000, 1), round(time.time() * 1000, 1)]


def session_totals(started: float, listed, latencies: list, n: int, pm) -> dict:
    """The boot calls' total, then ps until every process is RUNNING (those ps calls are not
    counted among ps' latencies)."""
    boot_calls_ms = (time.perf_counter() - started) * 1000
    mark = len(latencies)
    running = pm.ProcessInstance.StatusCode.RUNNING
    while sum(1 for p in listed() if p.status_code == running) < n:
        if time.perf_counter() - started > 600:
            raise TimeoutError(f"{n} processes not all RUNNING after 600 s")
    del latencies[mark:]
    return {"boot_calls_ms": round(boot_calls_ms),
            "all_running_ms": round((time.perf_counter() - started) * 1000)}


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.99 * len(ordered)) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--era", choices=["current", "enveloped"], default="current")
    parser.add_argument("--sizes", default="1,200")
    args = parser.parse_args()
    load(args.era)
    address = os.environ["KPM_DRUNC_GATEWAY"].removeprefix("grpc://")
    user, base = os.environ["KPM_TEST_USER"], os.environ["KPM_TEST_SESSION"]
    nodes = os.environ["KPM_TEST_NODES"].split(",")
    run = current_session if args.era == "current" else enveloped_session
    out: dict[str, dict] = {}
    for n in (int(s) for s in args.sizes.split(",")):
        by_rpc: dict[str, list[float]] = {}
        latencies, totals = run(address, user, f"{base}-{args.era[0]}{n}", nodes, n)
        for rpc, seconds in latencies:
            by_rpc.setdefault(rpc, []).append(seconds * 1000)
        out[str(n)] = {
            rpc: {"calls": len(ms), "median_ms": round(statistics.median(ms), 1),
                  "p99_ms": round(p99(ms), 1), "max_ms": round(max(ms), 1)}
            for rpc, ms in by_rpc.items()
        }
        out[str(n)]["session"] = totals
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
