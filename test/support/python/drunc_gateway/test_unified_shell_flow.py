"""drunc's unified shell against kpm, call for call as its ProcessManagerDriver makes them:
describe → boot each process of a DUNE tree in drunc's order → ps → logs → kill by name →
restart → terminate → ps of the user's session, which the shell expects empty on exit.
"""

from __future__ import annotations

import pytest

from druncschema import process_manager_pb2 as pm
from druncschema import request_response_pb2 as rr

from driver import query
from dune_session import DUNE_TREE, boot_request, dune_session

RUNNING = pm.ProcessInstance.StatusCode.RUNNING
DEAD = pm.ProcessInstance.StatusCode.DEAD


# What kpm's boot-worker adds to a process's environment when the request has none (as drunc's
# K8s process manager does): the answers carry the environment the process was given.
# drunc's K8sProcessManager sets these in every pod (HOME over the request's); kpm reports them.
ADDED_BY_KPM = {"USER", "HOME", "DOTDRUNC"}


def as_booted(description: pm.ProcessDescription) -> dict:
    """The description without what the process manager fills in (uuid, host, USER, HOME, DOTDRUNC)."""
    m = description.metadata
    return {
        "metadata": (m.user, m.session, m.name, m.tree_id, m.HasField("tree_id")),
        "env": {k: v for k, v in description.env.items() if k not in ADDED_BY_KPM},
        "executable_and_arguments": [(e.exec, list(e.args)) for e in description.executable_and_arguments],
        "process_execution_directory": description.process_execution_directory,
        "process_logs_path": description.process_logs_path,
    }


@pytest.fixture(scope="module")
def session(session_base: str) -> str:
    return f"{session_base}-flow"


@pytest.fixture(scope="module")
def booted(driver, user, session, nodes):
    """drunc's boot: one boot call per process, infrastructure first, as the driver yields them."""
    requests = dune_session(user, session, nodes)
    answers = [driver.boot(request) for request in requests]
    return list(zip(requests, answers))


def test_describe_names_kpm(driver):
    description = driver.describe()
    assert description.type == "process_manager"
    assert description.name == "kpm"
    assert description.flag == rr.ResponseFlag.EXECUTED_SUCCESSFULLY
    assert [c.name for c in description.commands] == [
        "describe", "kill", "restart", "boot", "terminate", "flush", "logs", "ps"]
    assert description.endpoint.startswith("grpc://")


def test_each_boot_answers_its_process_as_booted(booted, user, session):
    assert len(booted) == len(DUNE_TREE)
    for request, answer in booted:
        assert answer.flag == rr.ResponseFlag.EXECUTED_SUCCESSFULLY
        assert len(answer.values) == 1  # drunc's driver reads values[0].uuid.uuid
        booted_process = answer.values[0]
        assert booted_process.uuid.uuid
        assert booted_process.process_description.metadata.uuid.uuid == booted_process.uuid.uuid
        assert booted_process.status_code == RUNNING
        assert as_booted(booted_process.process_description) == as_booted(request.process_description)
        assert booted_process.process_description.env["USER"] == user
        assert booted_process.process_description.metadata.hostname == request.process_restriction.allowed_hosts[0]
        assert list(booted_process.process_restriction.allowed_hosts) == list(request.process_restriction.allowed_hosts)


def test_ps_lists_the_tree_as_booted(driver, booted, session):
    listed = driver.ps(query(names=[".*"], session=session))
    by_uuid = {p.uuid.uuid: p for p in listed.values}
    assert sorted(by_uuid) == sorted(a.values[0].uuid.uuid for _, a in booted)
    for request, answer in booted:
        process = by_uuid[answer.values[0].uuid.uuid]
        assert process.status_code == RUNNING
        assert not process.HasField("return_code")
        assert process.process_description.metadata.tree_id == request.process_description.metadata.tree_id
        assert as_booted(process.process_description) == as_booted(request.process_description)


def test_ps_is_an_and_of_the_selectors(driver, booted, user, session):
    names = sorted(p.process_description.metadata.name
                   for p in driver.ps(query(names=[r"^ru-\d"], session=session, user=user)).values)
    assert names == ["ru-01", "ru-02"]
    assert driver.ps(query(names=[r"^ru-\d"], session=session, user="nobody-else")).values == []


def test_logs_of_one_process(driver, booted, session):
    lines = driver.logs(pm.LogRequest(query=query(names=["^trigger$"], session=session), how_far=100))
    assert lines.flag == rr.ResponseFlag.EXECUTED_SUCCESSFULLY
    assert lines.name == "trigger"
    assert lines.uuid.uuid == next(a.values[0].uuid.uuid for r, a in booted
                                   if r.process_description.metadata.name == "trigger")
    # kwok runs nothing: kpm answers as drunc's K8s process manager does when no log is there.
    assert len(lines.lines) == 1 and lines.lines[0].startswith("Could not retrieve logs")


def test_kill_by_name(driver, booted, session):
    killed = driver.kill(query(names=["ru-02"], session=session))
    assert killed.flag == rr.ResponseFlag.EXECUTED_SUCCESSFULLY
    assert [p.process_description.metadata.name for p in killed.values] == ["ru-02"]
    assert killed.values[0].status_code == DEAD
    assert killed.values[0].HasField("return_code")
    # A killed process leaves the list, as in drunc.
    assert driver.ps(query(names=["ru-02"], session=session)).values == []


def test_restart_keeps_the_uuid(driver, booted, session):
    ru01 = next(a.values[0] for r, a in booted if r.process_description.metadata.name == "ru-01")
    restarted = driver.restart(query(uuids=[ru01.uuid.uuid]))
    assert [p.uuid.uuid for p in restarted.values] == [ru01.uuid.uuid]
    assert restarted.values[0].status_code == RUNNING
    assert as_booted(restarted.values[0].process_description) == as_booted(ru01.process_description)


def test_terminate_then_the_users_session_is_empty(driver, booted, user, session):
    before = {p.uuid.uuid for p in driver.ps(query(user=user, session=session)).values}
    terminated = driver.terminate()
    assert terminated.flag == rr.ResponseFlag.EXECUTED_SUCCESSFULLY
    assert before <= {p.uuid.uuid for p in terminated.values}
    assert all(p.status_code == DEAD for p in terminated.values)
    # The unified shell's last check on exit: "Some processes are still running" otherwise.
    assert len(driver.ps(query(user=user, session=session)).values) == 0
