"""What drunc's enveloped clients can send that kpm refuses, and how the refusal reads: never a
gRPC error (drunc's enveloped driver stops on one), always a Response whose flag says why and
whose data (a PlainText or a Stacktrace, as drunc reads it) carries the whole explanation — and
nothing is done.
"""

from __future__ import annotations

import uuid as uuidlib

import pytest
from google.protobuf import any_pb2

from druncschema import process_manager_pb2 as pm
from druncschema import request_response_pb2 as rr

from driver import FLAG, ProcessManagerDriver, boot_request, dummy_token, query


@pytest.fixture(scope="module")
def session(session_base: str) -> str:
    return f"{session_base}-bad"


@pytest.fixture(scope="module")
def running(driver, user, session, nodes):
    """One process of the user's session that every refusal below must leave running."""
    answer = driver.boot(boot_request(user, session, nodes[0], "survivor", [("daq_application", [])]))
    assert answer.ok, answer.text
    yield answer.data
    driver.kill(query(session=session))


def still_running(driver, process) -> bool:
    [now] = driver.ps(query(uuids=[process.uuid.uuid])).data.values
    return now.status_code == pm.ProcessInstance.StatusCode.RUNNING


def test_an_unknown_uuid(driver, running):
    unknown = str(uuidlib.uuid4())
    assert driver.ps(query(uuids=[unknown])).data.values == []
    assert driver.kill(query(uuids=[unknown])).data.values == []
    restarted = driver.restart(query(uuids=[unknown]))
    assert restarted.flag == FLAG.NOT_EXECUTED_BAD_REQUEST_FORMAT
    assert restarted.text.startswith("restart refused")
    [logs] = driver.logs(pm.LogRequest(query=query(uuids=[unknown]), how_far=100))
    assert logs.flag == FLAG.NOT_EXECUTED_BAD_REQUEST_FORMAT
    assert logs.text.startswith("logs refused: ")
    assert still_running(driver, running)


def test_an_empty_query_to_kill(driver, running):
    answer = driver.kill(pm.ProcessQuery())
    assert answer.flag == FLAG.NOT_EXECUTED_BAD_REQUEST_FORMAT
    assert "at least one selector is needed" in answer.text
    assert "uuids, names, user, session" in answer.text
    assert still_running(driver, running)


def test_a_regex_re2_refuses(driver, running, session):
    lookahead = "(?=surv)survivor"
    answer = driver.ps(query(names=[lookahead]))
    assert answer.flag == FLAG.NOT_EXECUTED_BAD_REQUEST_FORMAT
    assert "names[0]" in answer.text and lookahead in answer.text
    killed = driver.kill(query(names=[lookahead], session=session))
    assert killed.flag == FLAG.NOT_EXECUTED_BAD_REQUEST_FORMAT
    assert still_running(driver, running)


def test_another_users_session(address, other_user, running, session, nodes):
    intruder = ProcessManagerDriver(address, other_user)
    answer = intruder.boot(boot_request(other_user, session, nodes[0], "intruder", [("daq_application", [])]))
    assert answer.flag == FLAG.NOT_EXECUTED_NOT_AUTHORISED
    assert "belongs to user" in answer.text and session in answer.text
    killed = intruder.kill(query(session=session))
    assert killed.flag in (FLAG.NOT_EXECUTED_NOT_AUTHORISED, FLAG.EXECUTED_SUCCESSFULLY)
    if killed.ok:
        assert list(killed.data.values) == []


def test_a_garbage_any(driver, user, running):
    garbage = any_pb2.Any(type_url="type.googleapis.com/no.such.Message", value=b"\xff\x00\x13")
    answer = driver.call("kill", outformat=pm.ProcessInstanceList,
                         raw=rr.Request(token=dummy_token(user), data=garbage))
    assert answer.flag == FLAG.NOT_EXECUTED_BAD_REQUEST_FORMAT
    assert "no.such.Message" in answer.text
    assert "type.googleapis.com/dunedaq.druncschema.ProcessQuery" in answer.text
    # The right type with bytes that are not one.
    broken = any_pb2.Any(type_url="type.googleapis.com/dunedaq.druncschema.ProcessQuery", value=b"\x0a\xff")
    answer = driver.call("kill", outformat=pm.ProcessInstanceList,
                         raw=rr.Request(token=dummy_token(user), data=broken))
    assert answer.flag == FLAG.NOT_EXECUTED_BAD_REQUEST_FORMAT
    assert "do not decode" in answer.text
    # A payload of another RPC: a ProcessQuery where boot takes a BootRequest.
    answer = driver.call("boot", query(names=[".*"]), pm.ProcessInstance)
    assert answer.flag == FLAG.NOT_EXECUTED_BAD_REQUEST_FORMAT
    assert "dunedaq.druncschema.BootRequest" in answer.text
    assert still_running(driver, running)
