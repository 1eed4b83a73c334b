"""The enveloped era's flow on the stack's real kubelet node (KPM_REAL_NODE), with real
processes and real log lines: boot one call per process, ps, logs streamed line by line, restart
one uuid, flush a process that ended by itself, kill, terminate.
"""

from __future__ import annotations

import pytest

from druncschema import process_manager_pb2 as pm

from driver import boot_request, query
from drunc_fixtures import eventually

RUNNING = pm.ProcessInstance.StatusCode.RUNNING
DEAD = pm.ProcessInstance.StatusCode.DEAD
# Ends on SIGTERM within a second (kill's first stage), after two lines.
TALKER = "trap 'exit 143' TERM; echo first line; echo second line; while :; do sleep 1; done"



@pytest.fixture(scope="module")
def session(session_base: str) -> str:
    return f"{session_base}-real"


@pytest.fixture(scope="module")
def booted(driver, user, session, real_node):
    talker = driver.boot(boot_request(user, session, real_node, "talker", [("sh", ["-c", TALKER])]))
    quitter = driver.boot(boot_request(user, session, real_node, "quitter", [("sh", ["-c", "echo bye; exit 3"])]))
    assert talker.ok and quitter.ok, (talker.text, quitter.text)
    return talker.data, quitter.data


def unpack_list(answer) -> list:
    """The list a kill or terminate carries, also when flagged FAILED (then the data is raw)."""
    if answer.ok:
        return list(answer.data.values)
    if answer.data is not None and answer.data.Is(pm.ProcessInstanceList.DESCRIPTOR):
        values = pm.ProcessInstanceList()
        answer.data.Unpack(values)
        return list(values.values)
    return []


def lines_of(driver, uuid: str) -> list[str]:
    streamed = driver.logs(pm.LogRequest(query=query(uuids=[uuid]), how_far=100))
    assert all(s.ok and s.data.uuid.uuid == uuid for s in streamed), [s.text for s in streamed]
    return [s.data.line for s in streamed if s.data.line.strip()]


def test_logs_stream_the_real_lines(driver, booted):
    talker, _ = booted
    lines = eventually(lambda: lines_of(driver, talker.uuid.uuid), lambda got: len(got) >= 2)
    assert lines == ["first line", "second line"]


def test_a_process_that_ended_is_dead_then_flushed(driver, booted, session):
    _, quitter = booted
    uuid = quitter.uuid.uuid
    [dead] = eventually(lambda: driver.ps(query(uuids=[uuid])).data.values,
                        lambda got: len(got) == 1 and got[0].status_code == DEAD)
    assert dead.return_code == 3
    flushed = driver.flush(pm.ProcessQuery(uuids=[pm.ProcessUUID(uuid=uuid)]))
    assert flushed.ok and isinstance(flushed.data, pm.ProcessInstanceList)
    assert [(p.uuid.uuid, p.status_code, p.return_code) for p in flushed.data.values] == [(uuid, DEAD, 3)]
    assert driver.ps(query(session=session, names=["quitter"])).data.values == []


def test_restart_then_kill(driver, booted):
    talker, _ = booted
    uuid = talker.uuid.uuid
    restarted = driver.restart(query(uuids=[uuid]))
    assert restarted.ok and isinstance(restarted.data, pm.ProcessInstance), restarted.text
    assert (restarted.data.uuid.uuid, restarted.data.status_code) == (uuid, RUNNING)
    assert restarted.data.process_description.metadata.hostname == talker.process_restriction.allowed_hosts[0]
    eventually(lambda: lines_of(driver, uuid), lambda got: got == ["first line", "second line"])
    killed, metadata = driver.call_with_metadata("kill", query(uuids=[uuid]), pm.ProcessInstanceList)
    assert killed.ok, killed.text
    assert [(p.uuid.uuid, p.status_code, p.return_code) for p in killed.data.values] == [(uuid, DEAD, 143)]
    # The reply's metadata says the plan kpm made inside the call's 60 s deadline.
    assert 40 <= int(metadata["kpm-kill-within-seconds"]) < 60
    assert "kpm plans this kill to end within" in metadata["kpm-kill-plan"]


def test_terminate_leaves_nothing(driver, booted, user, session, real_node):
    # A session of its own: kpm's terminate of a session whose earlier processes already ended
    # (exited, flushed, restarted, killed) waited for those ends again and timed out here.
    session = f"{session}-end"
    again = driver.boot(boot_request(user, session, real_node, "talker-2", [("sh", ["-c", TALKER])]))
    assert again.ok, again.text
    # Terminated once it runs (its lines printed): a pod deleted before its container started
    # ends without the exit code its SIGTERM trap gives.
    eventually(lambda: lines_of(driver, again.data.uuid.uuid), lambda got: len(got) == 2)
    answer = driver.terminate(query())
    ended = [(p.process_description.metadata.name, p.status_code, p.return_code)
             for p in unpack_list(answer)]
    assert answer.ok, (answer.flag, answer.text, ended)
    assert again.data.uuid.uuid in {p.uuid.uuid for p in answer.data.values}
    assert all(p.status_code == DEAD for p in answer.data.values)
    assert driver.ps(query(user=user, session=session)).data.values == []
