"""logs with real lines: a process on the real kubelet node of the local stack (KPM_REAL_NODE)
prints two lines; drunc's logs call returns them. Run by the gateway's suite whenever the stack
has a real node, and the suite fails when the cluster has one and this cannot run.
"""

from __future__ import annotations

import os
import time

from druncschema import process_manager_pb2 as pm
from druncschema import request_response_pb2 as rr

from driver import query
from dune_session import boot_request


def test_logs_with_real_lines_on_the_real_node(driver, user, session_base):
    node = os.environ["KPM_REAL_NODE"]
    session = f"{session_base}-real"
    request = boot_request(user, session, node, "0", "echoer", "sh",
                           ["-c", "echo first line; echo second line; exec sleep 3600"], rte=None)
    request.process_description.process_execution_directory = ""
    request.process_description.process_logs_path = ""
    uuid = driver.boot(request).values[0].uuid.uuid
    try:
        # Tree id "0" without drunc's controller executable is an infrastructure application, which
        # drunc's boot answers as soon as its pod exists (only the connection server and the root
        # controller are waited for): ask until the container has printed its two lines.
        deadline = time.monotonic() + 60
        while True:
            got = driver.logs(pm.LogRequest(query=query(uuids=[uuid]), how_far=10))
            assert got.flag == rr.ResponseFlag.EXECUTED_SUCCESSFULLY
            assert got.name == "echoer"
            lines = [line for line in got.lines if line.strip()]
            if lines == ["first line", "second line"] or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert lines == ["first line", "second line"]
    finally:
        driver.kill(query(uuids=[uuid]))
