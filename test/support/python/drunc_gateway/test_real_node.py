"""druncschema 1.1.0's flow on the stack's real kubelet node (KPM_REAL_NODE), with real processes
and real log lines, as drunc's newest shell drives it: boot one call per process, ps, logs, a
process that ended by itself DEAD with its exit code then flushed, restart one uuid, kill (whose
reply says the plan kpm made inside the call's deadline), terminate. Run by the gateway's suite
whenever the stack has a real node, and the suite fails when the cluster has one and this cannot
run.
"""

from __future__ import annotations

import os

import pytest

from druncschema import process_manager_pb2 as pm
from druncschema import request_response_pb2 as rr

from driver import ProcessManagerDriver, query
from drunc_fixtures import eventually
from dune_session import boot_request

RUNNING = pm.ProcessInstance.RUNNING
DEAD = pm.ProcessInstance.DEAD
# Ends on SIGTERM within a second (kill's first stage), after two lines.
TALKER = "trap 'exit 143' TERM; echo first line; echo second line; while :; do sleep 1; done"



def on_real_node(user: str, session: str, name: str, script: str) -> pm.BootRequest:
    # Tree id "0" without drunc's controller executable is an infrastructure application.
    request = boot_request(user, session, os.environ["KPM_REAL_NODE"], "0", name, "sh", ["-c", script], rte=None)
    request.process_description.process_execution_directory = ""
    request.process_description.process_logs_path = ""
    return request


def lines_of(driver, uuid: str, name: str) -> list[str]:
    got = driver.logs(pm.LogRequest(query=query(uuids=[uuid]), how_far=10))
    assert got.flag == rr.ResponseFlag.EXECUTED_SUCCESSFULLY
    assert got.name == name
    return [line for line in got.lines if line.strip()]


@pytest.fixture(scope="module")
def booted(driver, user, session_base):
    session = f"{session_base}-real"
    talker = driver.boot(on_real_node(user, session, "echoer", TALKER)).values[0]
    quitter = driver.boot(on_real_node(user, session, "quitter", "echo bye; exit 3")).values[0]
    yield session, talker.uuid.uuid, quitter.uuid.uuid
    driver.kill(query(session=session))


def test_logs_with_real_lines_on_the_real_node(driver, booted):
    _, talker, _ = booted
    lines = eventually(lambda: lines_of(driver, talker, "echoer"), lambda got: len(got) >= 2)
    assert lines == ["first line", "second line"]


def test_ps_shows_both_on_the_real_node(driver, booted):
    session, talker, quitter = booted
    listed = driver.ps(query(session=session)).values
    assert sorted(p.uuid.uuid for p in listed) == sorted([talker, quitter])
    assert {p.process_description.metadata.hostname for p in listed} == {os.environ["KPM_REAL_NODE"]}


def test_a_process_that_ended_is_dead_then_flushed(driver, booted):
    session, _, quitter = booted
    [dead] = eventually(lambda: driver.ps(query(uuids=[quitter])).values,
                        lambda got: len(got) == 1 and got[0].status_code == DEAD)
    assert dead.return_code == 3
    flushed = driver.flush(query(uuids=[quitter]))
    assert flushed.flag == rr.ResponseFlag.EXECUTED_SUCCESSFULLY
    assert [(p.uuid.uuid, p.status_code, p.return_code) for p in flushed.values] == [(quitter, DEAD, 3)]
    assert driver.ps(query(session=session, names=["quitter"])).values == []


def test_restart_then_kill_whose_reply_says_its_plan(driver, booted):
    _, talker, _ = booted
    eventually(lambda: lines_of(driver, talker, "echoer"), lambda got: len(got) >= 2)
    restarted = driver.restart(query(uuids=[talker]))
    assert [(p.uuid.uuid, p.status_code) for p in restarted.values] == [(talker, RUNNING)]
    # The new container prints its two lines again (the old one's are gone with its pod).
    eventually(lambda: lines_of(driver, talker, "echoer"), lambda got: got == ["first line", "second line"])
    killed, metadata = driver.kill_with_metadata(query(uuids=[talker]), timeout=60)
    assert [(p.uuid.uuid, p.status_code, p.return_code) for p in killed.values] == [(talker, DEAD, 143)]
    # drunc's 60 s, less the gateway's margin and a tenth for what follows the kill.
    assert 40 <= int(metadata["kpm-kill-within-seconds"]) < 60
    assert "inside the call's deadline" in metadata["kpm-kill-plan"]


def test_terminate_leaves_nothing(address, session_base):
    # terminate ends every session of its caller: a user of this test alone.
    dana = "daq-dana"
    session = f"{session_base}-real-end"
    d = ProcessManagerDriver(address, dana)
    try:
        uuid = d.boot(on_real_node(dana, session, "talker-2", TALKER)).values[0].uuid.uuid
        # Terminated once it runs (its lines printed): a pod deleted before its container started
        # ends without the exit code its SIGTERM trap gives.
        eventually(lambda: lines_of(d, uuid, "talker-2"), lambda got: len(got) == 2)
        answer, metadata = d.terminate_with_metadata(timeout=60)
        assert answer.flag == rr.ResponseFlag.EXECUTED_SUCCESSFULLY
        assert [(p.uuid.uuid, p.status_code, p.return_code) for p in answer.values] == [(uuid, DEAD, 143)]
        assert "kpm plans this terminate to end within" in metadata["kpm-kill-plan"]
        assert d.ps(query(user=dana, session=session)).values == []
    finally:
        d.close()
