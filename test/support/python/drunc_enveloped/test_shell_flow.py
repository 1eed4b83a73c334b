"""drunc v0.10's process-manager shell against kpm, call for call as its enveloped driver makes
them: describe → boot one call per process in drunc's order (each answered with its
ProcessInstance, which the shell prints) → ps → logs (streamed) → kill by name → restart one
uuid → terminate (the shell's query; drunc's process managers end everything they run) → ps of
the user's session, empty.
"""

from __future__ import annotations

import pytest

from druncschema import process_manager_pb2 as pm
from druncschema import request_response_pb2 as rr

from driver import boot_request, query

RUNNING = pm.ProcessInstance.StatusCode.RUNNING
DEAD = pm.ProcessInstance.StatusCode.DEAD

# (tree id, name) as drunc's driver numbers a segment's applications; v0.10's table splits every
# tree id into exactly three parts.
TREE = [("0.1.1", "ru-01"), ("0.1.2", "ru-02"), ("0.2.1", "df-01"), ("0.3.1", "trigger")]


@pytest.fixture(scope="module")
def session(session_base: str) -> str:
    return f"{session_base}-shell"


@pytest.fixture(scope="module")
def booted(driver, user, session, nodes):
    requests = [boot_request(user, session, nodes[i % len(nodes)], name,
                             [("daq_application", ["--name", name])], tree_id=tree_id)
                for i, (tree_id, name) in enumerate(TREE)]
    return [(r, driver.boot(r)) for r in requests]


def test_describe(driver):
    answer = driver.describe()
    assert answer.ok and isinstance(answer.data, rr.Description)
    assert (answer.data.type, answer.data.name, answer.data.session) == ("process_manager", "kpm", "no_session")
    assert [c.name for c in answer.data.commands] == [
        "describe", "kill", "restart", "boot", "terminate", "flush", "logs", "ps"]
    returns = {c.name: c.return_type for c in answer.data.commands}
    assert returns["boot"] == returns["restart"] == "process_manager_pb2.ProcessInstance"
    assert returns["logs"] == "process_manager_pb2.LogLine"


def test_each_boot_answers_its_process_instance(booted, user, session):
    for request, answer in booted:
        assert answer.ok and isinstance(answer.data, pm.ProcessInstance), answer.text
        metadata = answer.data.process_description.metadata
        assert (metadata.name, metadata.user, metadata.session, metadata.tree_id) == (
            request.process_description.metadata.name, user, session,
            request.process_description.metadata.tree_id)
        assert answer.data.uuid.uuid and metadata.uuid.uuid == answer.data.uuid.uuid
        assert metadata.hostname == request.process_restriction.allowed_hosts[0]
        assert answer.data.status_code == RUNNING


def test_ps_of_the_session(driver, booted, session):
    answer = driver.ps(query(session=session))
    assert answer.ok
    assert sorted(p.uuid.uuid for p in answer.data.values) == sorted(a.data.uuid.uuid for _, a in booted)
    # v0.10's table: root, ctrl, proc = tree_id.split('.')
    assert all(len(p.process_description.metadata.tree_id.split(".")) == 3 for p in answer.data.values)


def test_logs_by_name(driver, booted, session):
    streamed = driver.logs(pm.LogRequest(query=query(names=["^trigger$"], session=session), how_far=100))
    trigger = next(a.data.uuid.uuid for r, a in booted if r.process_description.metadata.name == "trigger")
    assert streamed and all(s.ok and s.data.uuid.uuid == trigger for s in streamed)


def test_kill_by_name(driver, booted, session):
    answer = driver.kill(query(names=["ru-02"], session=session))
    assert answer.ok
    assert [(p.process_description.metadata.name, p.status_code) for p in answer.data.values] == [("ru-02", DEAD)]
    assert driver.ps(query(names=["ru-02"], session=session)).data.values == []


def test_restart_one_uuid(driver, booted):
    ru01 = next(a.data for r, a in booted if r.process_description.metadata.name == "ru-01")
    answer = driver.restart(query(uuids=[ru01.uuid.uuid]))
    assert answer.ok and isinstance(answer.data, pm.ProcessInstance), answer.text
    assert (answer.data.uuid.uuid, answer.data.status_code) == (ru01.uuid.uuid, RUNNING)


def test_terminate_then_the_session_is_empty(driver, booted, user, session):
    before = {p.uuid.uuid for p in driver.ps(query(user=user, session=session)).data.values}
    answer = driver.terminate(query(session=session))
    assert answer.ok and isinstance(answer.data, pm.ProcessInstanceList), answer.text
    assert before <= {p.uuid.uuid for p in answer.data.values}
    assert all(p.status_code == DEAD for p in answer.data.values)
    assert driver.ps(query(user=user, session=session)).data.values == []
