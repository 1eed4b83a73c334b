"""drunc's enveloped era against kpm's drunc gateway: drunc v0.10's shells and drunc's web UI
(drunc_ui, which pins an enveloped drunc), as their driver calls a process manager and a session
manager: every call a Request{token, data: Any}, every answer a Response{name, token, data: Any,
flag, children}, logs streamed.

Stubs are generated at the start of the run with grpcio-tools from the project's .proto files of
that era (apps/drunc-gateway/proto/enveloped), as druncschema generates its own; nothing
generated is kept. The era's messages share names with 1.1.0's, so this suite runs in a Python
process of its own (test/support/python/drunc_gateway is the 1.1.0 one).

Environment (set by test/integration/drunc-enveloped.test.ts):
  KPM_DRUNC_GATEWAY   grpc://host:port of the gateway
  KPM_TEST_SESSION    a session name of this run (DNS-1123); more are derived from it
  KPM_TEST_USER       the user the clients act as; KPM_TEST_OTHER_USER another one
  KPM_TEST_NODES      comma-separated kwok node names (drunc's allowed_hosts)
  KPM_REAL_NODE       the stack's real kubelet node: logs with real lines
  KPM_TEST_CONFIGS    the gateway's configurations, as gateway.configurations has them
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from drunc_fixtures import (  # noqa: E402,F401 (fixtures pytest finds here)
    address,
    install_stubs,
    nodes,
    other_user,
    session_base,
    user,
)

ROOT = Path(__file__).resolve().parents[4]
PROTO_DIR = ROOT / "apps" / "drunc-gateway" / "proto" / "enveloped"


def pytest_configure(config: pytest.Config) -> None:
    install_stubs(PROTO_DIR, "kpm-drunc-enveloped-stubs")


@pytest.fixture(scope="session")
def real_node() -> str:
    return os.environ["KPM_REAL_NODE"]


@pytest.fixture(scope="session")
def configs() -> list[tuple[str, str]]:
    entries = [e for e in os.environ.get("KPM_TEST_CONFIGS", "").split(",") if e]
    return [tuple(e.rsplit(":", 1)) for e in entries]  # type: ignore[misc]


@pytest.fixture(scope="session")
def driver(address: str, user: str):
    from driver import ProcessManagerDriver

    return ProcessManagerDriver(address, user)
