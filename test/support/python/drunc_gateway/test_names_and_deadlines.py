"""drunc's own process names, and drunc's deadlines, through the gateway.

- drunc's dummy_boot names its processes dummy_boot_<i>, and DUNE's configurations name
  applications freely: they boot, ps and kill show them as given, a name whose pod would be
  named as another's is refused with the whole explanation in the status message;
- a terminate of processes that ignore SIGTERM answers inside drunc's 60 s deadline (kpm
  plans its stages' grace inside it), on the stack's real node where SIGTERM is really ignored.
"""

from __future__ import annotations

import hashlib
import os
import re
import time

import grpc
import pytest

from druncschema import process_manager_pb2 as pm
from druncschema import request_response_pb2 as rr

from driver import ProcessManagerDriver, query, rich_error
from dune_session import boot_request


def pod_name_of(name: str) -> str:
    """kpm's derivation (libs/kube/src/pod-name.ts), to build a name that collides on purpose."""
    if re.fullmatch(r"[a-z]([-a-z0-9]{0,61}[a-z0-9])?", name):
        return name
    base = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    if not re.match(r"[a-z]", base):
        base = f"p-{base}" if base else "p"
    base = base[:54].rstrip("-")
    return f"{base}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


def test_drunc_names_boot_and_are_shown_as_given(driver, user, session_base, nodes):
    session = f"{session_base}-names"
    names = ["dummy_boot_0", "dummy_boot_1", "RU.01"]
    for i, name in enumerate(names):
        booted = driver.boot(boot_request(user, session, nodes[0], f"0.{i}", name, "sleep", ["3600"], rte=None))
        assert booted.values[0].process_description.metadata.name == name
    listed = driver.ps(query(session=session))
    assert sorted(p.process_description.metadata.name for p in listed.values) == sorted(names)
    killed = driver.kill(query(session=session, names=["^dummy_boot_0$"]))
    assert [p.process_description.metadata.name for p in killed.values] == ["dummy_boot_0"]
    assert killed.values[0].status_code == pm.ProcessInstance.DEAD
    left = driver.ps(query(session=session))
    assert sorted(p.process_description.metadata.name for p in left.values) == ["RU.01", "dummy_boot_1"]
    driver.kill(query(session=session))


def test_a_name_whose_pod_would_be_anothers_is_refused_whole(driver, user, session_base, nodes):
    session = f"{session_base}-names2"
    driver.boot(boot_request(user, session, nodes[0], "0.0", "dummy_boot_0", "sleep", ["3600"], rte=None))
    twin = pod_name_of("dummy_boot_0")
    with pytest.raises(grpc.RpcError) as refused:
        driver.boot(boot_request(user, session, nodes[0], "0.1", twin, "sleep", ["3600"], rte=None))
    error = rich_error(refused.value)
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert error.message == (
        f'boot refused by kpm: process_description.metadata.name: "{twin}" would name its pod '
        f'"{twin}", as the running process "dummy_boot_0" does: rename one of them'
    )
    driver.kill(query(session=session))


def test_terminate_of_processes_ignoring_sigterm_answers_inside_drunc_deadline(address, session_base):
    node = os.environ["KPM_REAL_NODE"]
    carol = "daq-carol"  # terminate ends every session of its caller: a user of this test alone
    session = f"{session_base}-deadline"
    d = ProcessManagerDriver(address, carol)
    try:
        # PID 1 of a container ignores SIGTERM it has no handler for: `exec sleep` never stops on it.
        # Tree ids "0" and "0.1" are two of drunc's stages (infrastructure after applications).
        for tree_id, name in [("0", "infra_0"), ("0.1", "app_0"), ("0.2", "app_1")]:
            request = boot_request(carol, session, node, tree_id, name, "sleep", ["3600"], rte=None)
            request.process_description.process_execution_directory = ""
            request.process_description.process_logs_path = ""
            d.boot(request)
        started = time.monotonic()
        # drunc's driver gives terminate 60 s in some versions.
        answer, metadata = d.terminate_with_metadata(timeout=60)
        took = time.monotonic() - started
        print(f"terminate of 3 processes ignoring SIGTERM, 2 stages, 60 s deadline: {took:.1f} s")
        assert answer.flag == rr.ResponseFlag.EXECUTED_SUCCESSFULLY
        assert sorted(p.process_description.metadata.name for p in answer.values) == ["app_0", "app_1", "infra_0"]
        assert all(p.status_code == pm.ProcessInstance.DEAD for p in answer.values)
        assert took < 60
        # The reply says the plan: the stages' grace shortened to end within the budget it names.
        assert took < int(metadata["kpm-kill-within-seconds"]) < 60
        assert "inside the call's deadline" in metadata["kpm-kill-plan"]
        assert d.ps(query(user=carol, session=session)).values == []
    finally:
        d.close()
