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

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[4]
PROTO_DIR = ROOT / "apps" / "drunc-gateway" / "proto"


def _generate_stubs(out: Path) -> None:
    from grpc_tools import protoc

    include = Path(protoc.__file__).parent / "_proto"
    files = sorted(str(p.relative_to(PROTO_DIR)) for p in (PROTO_DIR / "druncschema").glob("*.proto"))
    code = protoc.main(
        [
            "grpc_tools.protoc",
            f"-I{PROTO_DIR}",
            f"-I{include}",
            f"--python_out={out}",
            f"--grpc_python_out={out}",
            *files,
        ]
    )
    if code != 0:
        raise RuntimeError(f"protoc failed ({code}) on {files}")


def pytest_configure(config: pytest.Config) -> None:
    tmp = Path(os.environ.get("TMPDIR", "/tmp"))
    out = Path(os.environ.get("KPM_STUB_DIR") or tmp / f"kpm-drunc-stubs-{os.getpid()}")
    out.mkdir(parents=True, exist_ok=True)
    _generate_stubs(out)
    sys.path.insert(0, str(out))


@pytest.fixture(scope="session")
def address() -> str:
    value = os.environ["KPM_DRUNC_GATEWAY"]
    assert value.startswith("grpc://"), f"KPM_DRUNC_GATEWAY must be grpc://host:port, got {value}"
    return value.removeprefix("grpc://")


@pytest.fixture(scope="session")
def user() -> str:
    return os.environ["KPM_TEST_USER"]


@pytest.fixture(scope="session")
def other_user() -> str:
    return os.environ["KPM_TEST_OTHER_USER"]


@pytest.fixture(scope="session")
def nodes() -> list[str]:
    return [n for n in os.environ["KPM_TEST_NODES"].split(",") if n]


@pytest.fixture(scope="session")
def session_base() -> str:
    return os.environ["KPM_TEST_SESSION"]


@pytest.fixture(scope="session")
def driver(address: str, user: str):
    from driver import ProcessManagerDriver

    d = ProcessManagerDriver(address, user)
    yield d
    d.close()
