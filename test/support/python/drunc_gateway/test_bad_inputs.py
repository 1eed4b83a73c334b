"""What drunc's clients can send that kpm refuses, and how the refusal reads: drunc's rich status
(google.rpc.Status in the trailer, ErrorInfo with domain ProcessManager.<rpc>, BadRequest naming
the field), or drunc's BadQuery answer for logs — and nothing is done.
"""

from __future__ import annotations

import threading
import uuid as uuidlib

import grpc
import pytest
from google.protobuf import any_pb2

from druncschema import process_manager_pb2 as pm
from druncschema import process_manager_pb2_grpc as pm_grpc
from druncschema import request_response_pb2 as rr

from driver import ProcessManagerDriver, dummy_token, query, rich_error
from dune_session import boot_request


@pytest.fixture(scope="module")
def session(session_base: str) -> str:
    return f"{session_base}-bad"


@pytest.fixture(scope="module")
def running(driver, user, session, nodes):
    """One process of the user's session that every refusal below must leave running."""
    answer = driver.boot(boot_request(user, session, nodes[0], "0", "survivor", "daq_application", []))
    yield answer.values[0]
    driver.kill(query(session=session))


def still_running(driver, process) -> bool:
    [now] = driver.ps(query(uuids=[process.uuid.uuid])).values
    return now.status_code == pm.ProcessInstance.StatusCode.RUNNING


def refused(call) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    return caught.value


def test_an_empty_query_to_kill(driver, running):
    error = rich_error(refused(lambda: driver.kill(pm.ProcessQuery())))
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert error.domain == "ProcessManager.kill"
    assert error.reason == "NOT_EXECUTED_BAD_REQUEST_FORMAT"
    assert [field for field, _ in error.violations] == ["uuids, names, user, session"]
    assert still_running(driver, running)


def test_an_unknown_uuid(driver, running):
    unknown = str(uuidlib.uuid4())
    assert driver.ps(query(uuids=[unknown])).values == []
    assert driver.kill(query(uuids=[unknown])).values == []
    logs = driver.logs(pm.LogRequest(query=query(uuids=[unknown]), how_far=10))
    assert logs.flag == rr.ResponseFlag.NOT_EXECUTED_BAD_REQUEST_FORMAT
    assert len(logs.lines) == 1 and logs.lines[0]
    error = rich_error(refused(lambda: driver.restart(query(uuids=[unknown]))))
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert error.domain == "ProcessManager.restart"
    assert still_running(driver, running)


def test_a_uuid_that_is_not_one(driver, running):
    error = rich_error(refused(lambda: driver.ps(query(uuids=["not-a-uuid"]))))
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert [field for field, _ in error.violations] == ["uuids"]


def test_a_regex_re2_refuses(driver, running, session):
    lookahead = "(?=ru)ru"
    error = rich_error(refused(lambda: driver.ps(query(names=[lookahead]))))
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert error.domain == "ProcessManager.ps"
    [(field, why)] = error.violations
    assert field == "names[0]" and lookahead in why
    error = rich_error(refused(lambda: driver.kill(query(names=[lookahead], session=session))))
    assert [field for field, _ in error.violations] == ["names[0]"]
    logs = driver.logs(pm.LogRequest(query=query(names=[lookahead]), how_far=10))
    assert logs.flag == rr.ResponseFlag.NOT_EXECUTED_BAD_REQUEST_FORMAT
    assert lookahead in logs.lines[0]
    assert still_running(driver, running)


def test_a_boot_into_another_users_session(address, other_user, running, session, nodes):
    intruder = ProcessManagerDriver(address, other_user)
    try:
        request = boot_request(other_user, session, nodes[0], "0.9", "intruder", "daq_application", [])
        error = rich_error(refused(lambda: intruder.boot(request)))
    finally:
        intruder.close()
    assert error.code == grpc.StatusCode.PERMISSION_DENIED
    assert error.reason == "NOT_EXECUTED_NOT_AUTHORISED"
    assert "belongs to user" in error.message
    assert [field for field, _ in error.violations] == ["process_description.metadata.session"]


def test_a_boot_whose_fields_kpm_refuses(driver, user, session, nodes):
    request = boot_request(user, session, nodes[0], "0.8", "dummy boot 0", "echo", ["hi"])
    request.process_restriction.data_mount = "relative/dir"
    error = rich_error(refused(lambda: driver.boot(request)))
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    fields = sorted(field for field, _ in error.violations)
    assert fields == ["process_description.metadata.name", "process_restriction.data_mount"]


def test_a_garbage_any(driver, user, running):
    garbage = any_pb2.Any(type_url="type.googleapis.com/no.such.Message", value=b"\xff\x00\x13")
    request = rr.Request(token=dummy_token(user), data=garbage)
    error = rich_error(refused(lambda: driver.stub.terminate(request, timeout=130)))
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert [field for field, _ in error.violations] == ["data"]
    assert "no.such.Message" in error.message
    assert still_running(driver, running)


def test_what_drunc_servers_lack_is_unimplemented(address, user):
    """send_msg and log_on_server, which newer shells call, as drunc's base class answers them."""
    channel = grpc.insecure_channel(address)
    try:
        for method in ("send_msg", "log_on_server"):
            call = channel.unary_unary(
                f"/dunedaq.druncschema.process_manager.ProcessManager/{method}",
                request_serializer=rr.Request.SerializeToString,
                response_deserializer=lambda b: b,
            )
            garbage = any_pb2.Any(type_url="type.googleapis.com/x", value=b"\x01")
            error = rich_error(refused(lambda: call(rr.Request(token=dummy_token(user), data=garbage), timeout=10)))
            assert error.code == grpc.StatusCode.UNIMPLEMENTED
            assert error.message == "Implementation missing"
            assert (error.reason, error.domain) == ("NOT_IMPLEMENTED", f"ProcessManager.{method}")
    finally:
        channel.close()


def test_keepalive_pings_are_accepted(address, user):
    """A client pinging every second, within and between calls, is never sent away: its channel
    stays READY (a GOAWAY for too many pings would drop it to IDLE) and calls keep working."""
    options = [
        ("grpc.keepalive_time_ms", 1000),
        ("grpc.keepalive_timeout_ms", 5000),
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.max_pings_without_data", 0),
    ]
    channel = grpc.insecure_channel(address, options=options)
    states: list[grpc.ChannelConnectivity] = []
    channel.subscribe(states.append, try_to_connect=True)
    try:
        stub = pm_grpc.ProcessManagerStub(channel)
        stub.describe(rr.Request(token=dummy_token(user)), timeout=10)
        # The subject of the test is time passing with pings and no calls: six keepalive intervals.
        threading.Event().wait(6)
        stub.describe(rr.Request(token=dummy_token(user)), timeout=10)
        since_ready = states[states.index(grpc.ChannelConnectivity.READY):]
        assert set(since_ready) == {grpc.ChannelConnectivity.READY}, states
    finally:
        channel.unsubscribe(states.append)
        channel.close()
