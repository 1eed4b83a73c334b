"""drunc's web UI (drunc_ui, interfaces/process_manager_interface.py and
session_manager_interface.py), call for call: its process table is `ps(names=[".*"])` with no
session or user — every session it may see — read from `.data.values`; Restart sends one uuid a
call and reads a ProcessInstance; Kill and Flush send the selected uuids at once and read a
ProcessInstanceList; LOGS streams `logs(how_far=100)` and reads `.data.line`; the Sessions page
asks the SessionManager for `list_all_sessions` and `list_all_configs`. Each successful reply
must be exactly the type drunc unpacks (UnpackingError otherwise).
"""

from __future__ import annotations

import pytest

from druncschema import process_manager_pb2 as pm
from druncschema import request_response_pb2 as rr

from driver import FLAG, ProcessManagerDriver, SessionManagerDriver, boot_request, query

RUNNING = pm.ProcessInstance.StatusCode.RUNNING
DEAD = pm.ProcessInstance.StatusCode.DEAD
NAMES = ["reader-a", "reader-b", "reader-c"]


@pytest.fixture(scope="module")
def sessions(session_base: str) -> tuple[str, str]:
    return f"{session_base}-ui", f"{session_base}-ui-other"


@pytest.fixture(scope="module")
def booted(driver, address, user, other_user, nodes, sessions):
    """The user's session of three processes, and another user's of one, booted one call each."""
    mine, theirs = sessions
    answers = [driver.boot(boot_request(user, mine, nodes[i % len(nodes)], name,
                                        [("daq_application", ["--name", name])], tree_id=f"0.1.{i + 1}"))
               for i, name in enumerate(NAMES)]
    other = ProcessManagerDriver(address, other_user)
    foreign = other.boot(boot_request(other_user, theirs, nodes[0], "their-app", [("daq_application", [])]))
    assert [a.flag for a in answers + [foreign]] == [FLAG.EXECUTED_SUCCESSFULLY] * 4, [a.text for a in answers + [foreign]]
    yield {a.data.process_description.metadata.name: a.data for a in answers}, foreign.data
    other.terminate()


def test_the_process_table_is_every_session(driver, booted, user, other_user, sessions):
    mine, foreign = booted
    table = driver.ps(pm.ProcessQuery(names=[".*"]))
    assert table.ok and isinstance(table.data, pm.ProcessInstanceList)
    rows = {p.uuid.uuid: p for p in table.data.values}
    assert {p.uuid.uuid for p in mine.values()} | {foreign.uuid.uuid} <= set(rows)
    shown = sorted((m.name, m.user, m.session, p.status_code)
                   for p in rows.values() for m in [p.process_description.metadata]
                   if m.session in sessions)
    assert shown == sorted([(n, user, sessions[0], RUNNING) for n in NAMES]
                           + [("their-app", other_user, sessions[1], RUNNING)])


def test_hostnames_are_the_nodes_booted_on(driver, booted, sessions):
    """drunc_ui's get_hostnames: metadata.name → metadata.hostname from the same table."""
    table = driver.ps(pm.ProcessQuery(names=[".*"]))
    hosts = {p.process_description.metadata.name: p.process_description.metadata.hostname
             for p in table.data.values if p.process_description.metadata.session == sessions[0]}
    mine, _ = booted
    assert hosts == {n: p.process_restriction.allowed_hosts[0] for n, p in mine.items()}


def test_logs_stream_one_log_line_per_response(driver, booted):
    mine, _ = booted
    uuid = mine["reader-a"].uuid.uuid
    streamed = driver.logs(pm.LogRequest(query=pm.ProcessQuery(uuids=[pm.ProcessUUID(uuid=uuid)]), how_far=100))
    assert len(streamed) >= 1
    for answer in streamed:
        assert answer.ok and isinstance(answer.data, pm.LogLine)
        assert answer.data.uuid.uuid == uuid
    # kwok runs nothing: kpm answers as drunc's K8s process manager does when no log is there.
    assert streamed[0].data.line.startswith("Could not retrieve logs")


def test_restart_one_uuid_a_call(driver, booted):
    mine, _ = booted
    for name in ("reader-a", "reader-b"):
        uuid = mine[name].uuid.uuid
        answer = driver.restart(pm.ProcessQuery(uuids=[pm.ProcessUUID(uuid=uuid)]))
        assert answer.ok and isinstance(answer.data, pm.ProcessInstance), answer.text
        assert (answer.data.uuid.uuid, answer.data.status_code) == (uuid, RUNNING)
        assert answer.data.process_description.metadata.name == name


def test_flush_forgets_only_the_dead(driver, booted):
    mine, _ = booted
    uuids = [pm.ProcessUUID(uuid=p.uuid.uuid) for p in mine.values()]
    answer = driver.flush(pm.ProcessQuery(uuids=uuids))
    assert answer.ok and isinstance(answer.data, pm.ProcessInstanceList)
    assert list(answer.data.values) == []
    assert len(driver.ps(pm.ProcessQuery(uuids=uuids)).data.values) == 3


def test_kill_the_selected_uuids(driver, booted, sessions):
    mine, foreign = booted
    uuids = [mine["reader-b"].uuid.uuid, mine["reader-c"].uuid.uuid]
    answer = driver.kill(pm.ProcessQuery(uuids=[pm.ProcessUUID(uuid=u) for u in uuids]))
    assert answer.ok and isinstance(answer.data, pm.ProcessInstanceList), answer.text
    assert sorted(p.uuid.uuid for p in answer.data.values) == sorted(uuids)
    assert all(p.status_code == DEAD for p in answer.data.values)
    left = driver.ps(pm.ProcessQuery(names=[".*"])).data.values
    assert sorted(p.process_description.metadata.name for p in left
                  if p.process_description.metadata.session == sessions[0]) == ["reader-a"]
    assert foreign.uuid.uuid in {p.uuid.uuid for p in left}


def test_the_sessions_page(address, user, other_user, booted, sessions, configs):
    manager = SessionManagerDriver(address, user)
    try:
        description = manager.describe()
        assert description.ok and isinstance(description.data, rr.Description)
        assert description.data.type == "session_manager"
        listed = manager.list_all_sessions()
        assert listed.ok
        active = {s.name: s.user for s in listed.data.active_sessions}
        assert (active.get(sessions[0]), active.get(sessions[1])) == (user, other_user)
        found = manager.list_all_configs()
        assert found.ok
        assert [(c.file, c.session_id) for c in found.data.config_keys] == configs
    finally:
        manager.close()


def dummy_boot(user: str, session: str, n: int, sleep: int, n_sleeps: int) -> list[pm.BootRequest]:
    """drunc's enveloped driver's dummy_boot: one BootRequest per process, echo and sleep commands,
    allowed_hosts ["localhost"], drunc's names dummy_boot_<i>, and no log file in the working
    directory (kpm refuses a path outside its hostPathPrefixes)."""
    execs = [("echo", ["Starting dummy_boot."])]
    for i in range(1, n_sleeps + 1):
        execs += [("sleep", [f"{sleep}s"]), ("echo", [f"{sleep * i}s"])]
    execs.append(("echo", ["Exiting."]))
    requests = []
    for i in range(n):
        r = boot_request(user, session, "localhost", f"dummy_boot_{i}", execs)
        r.process_description.env.clear()
        requests.append(r)
    return requests


def test_dummy_boot_of_the_shell_and_of_the_web_ui(driver, user, session_base, nodes):
    session = f"{session_base}-dummy"
    answers = [driver.boot(r) for r in dummy_boot(user, session, 2, 30, 2)]
    assert all(a.ok and isinstance(a.data, pm.ProcessInstance) for a in answers), [a.text for a in answers]
    # drunc's names stay drunc's: the pod's name is kpm's business.
    assert [a.data.process_description.metadata.name for a in answers] == ["dummy_boot_0", "dummy_boot_1"]
    # drunc's localhost is the process manager's own host: kpm places the process on a usable node.
    assert all(a.data.process_description.metadata.hostname in nodes for a in answers)
    assert driver.kill(query(session=session)).ok
    # drunc's web UI boots with dummy_boot(user="root"): the metadata names another user than the
    # token, which kpm refuses, saying so (a kpm session belongs to the user who boots it).
    [as_root] = dummy_boot("root", f"{session_base}-dummy", 1, 1, 1)
    refused = driver.boot(as_root)
    assert refused.flag == FLAG.NOT_EXECUTED_BAD_REQUEST_FORMAT
    assert "process_description.metadata.user" in refused.text and "root" in refused.text
