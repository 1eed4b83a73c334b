"""The drunc gateway's Python suite: drunc's own gRPC stack (grpcio, grpcio-status) against kpm.

Stubs are generated at the start of the run with grpcio-tools from the project's .proto files
(apps/drunc-gateway/proto), as druncschema generates its own; nothing generated is kept.

Environment (set by test/integration/drunc-gateway.test.ts):
  KPM_DRUNC_GATEWAY   grpc://host:port of the gateway
  KPM_TEST_SESSION    a session name of this run (DNS-1123); more are derived from it
  KPM_TEST_USER       the user the shells act as; KPM_TEST_OTHER_USER another one
  KPM_TEST_NODES      comma-separated kwok node names (drunc's allowed_hosts)
  KPM_REAL_NODE       a real kubelet node, when the stack has one: logs with real lines
"""

from __future__ import annotations

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
PROTO_DIR = ROOT / "apps" / "drunc-gateway" / "proto"


def pytest_configure(config: pytest.Config) -> None:
    install_stubs(PROTO_DIR, "kpm-drunc-stubs")


@pytest.fixture(scope="session")
def driver(address: str, user: str):
    from driver import ProcessManagerDriver

    d = ProcessManagerDriver(address, user)
    yield d
    d.close()
