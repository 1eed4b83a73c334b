"""What drunc's clients can send that kpm refuses, and how the refusal reads: drunc's rich status
(google.rpc.Status in the trailer, ErrorInfo with domain ProcessManager.<rpc>, BadRequest naming
the field), or drunc's BadQuery answer for logs — and nothing is done. And what drunc's newer
clients tell the server (log_on_server, echo_on_server, send_msg), with good and bad inputs.
"""

from __future__ import annotations

import threading
import uuid as uuidlib

import grpc
import pytest
from google.protobuf import any_pb2

from druncschema import common_pb2 as common
from druncschema import generic_pb2 as generic
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


def log_request(user: str, text: str, severity: str) -> common.LogOnServerRequest:
    """What drunc's ProcessManagerDriver sends: target "", neither path flag set."""
    return common.LogOnServerRequest(
        token=dummy_token(user),
        text=text,
        severity=severity,
        target="",
        execute_along_path=False,
        execute_on_all_subsequent_children_in_path=False,
    )


@pytest.mark.parametrize("method", ["log_on_server", "echo_on_server"])
def test_log_and_echo_on_server(driver, user, method):
    """The shells' log_on_server at connect, and echo_on_server: logged, answered as drunc does."""
    call = getattr(driver.stub, method)
    for severity in ("INFO", "debug", "WARNING", "ERROR", "CRITICAL"):
        answer = call(log_request(user, f"{user} connected", severity), timeout=10)
        assert answer.flag == rr.ResponseFlag.EXECUTED_SUCCESSFULLY
        assert answer.name == driver.describe().name
        assert (answer.token.user_name, list(answer.children)) == (user, [])
    empty = call(log_request(user, "", "INFO"), timeout=10)
    assert empty.flag == rr.ResponseFlag.EXECUTED_SUCCESSFULLY


@pytest.mark.parametrize("method", ["log_on_server", "echo_on_server"])
def test_a_severity_that_names_no_level(driver, user, method):
    """Not logged, and answered NOT_EXECUTED_NOT_IMPLEMENTED, as drunc's servers answer it."""
    answer = getattr(driver.stub, method)(log_request(user, "x", "LOUD"), timeout=10)
    assert answer.flag == rr.ResponseFlag.NOT_EXECUTED_NOT_IMPLEMENTED


def test_send_msg(driver, user):
    """Run control's end_session: a GenericNotificationMessage packed as drunc's driver packs it."""
    request = rr.Request(token=dummy_token(user))
    request.data.Pack(pm.GenericNotificationMessage(message=f"session of {user} ended"))
    answer = driver.stub.send_msg(request, timeout=10)
    assert answer == generic.OutcomeStatus()
    # drunc's driver sends no data when it has no message.
    assert driver.stub.send_msg(rr.Request(token=dummy_token(user)), timeout=10) == generic.OutcomeStatus()


@pytest.mark.parametrize(
    "data, why",
    [
        (any_pb2.Any(type_url="type.googleapis.com/no.such.Message", value=b"\x01"), '"type.googleapis.com/no.such.Message"'),
        (
            any_pb2.Any(
                type_url="type.googleapis.com/dunedaq.druncschema.process_manager.GenericNotificationMessage",
                value=b"\xff\x00\x13",
            ),
            "do not decode as a dunedaq.druncschema.process_manager.GenericNotificationMessage",
        ),
    ],
    ids=["another type", "garbage of the right type"],
)
def test_send_msg_with_a_bad_any(driver, user, data, why):
    error = rich_error(refused(lambda: driver.stub.send_msg(rr.Request(token=dummy_token(user), data=data), timeout=10)))
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert (error.reason, error.domain) == ("NOT_EXECUTED_BAD_REQUEST_FORMAT", "ProcessManager.send_msg")
    assert [field for field, _ in error.violations] == ["data"]
    assert why in error.message
