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

ROOT = Path(__file__).resolve().parents[4]
PROTO_DIR = ROOT / "apps" / "drunc-gateway" / "proto" / "enveloped"


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
    out = Path(os.environ.get("KPM_STUB_DIR") or tmp / f"kpm-drunc-enveloped-stubs-{os.getpid()}")
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
def real_node() -> str:
    return os.environ["KPM_REAL_NODE"]


@pytest.fixture(scope="session")
def session_base() -> str:
    return os.environ["KPM_TEST_SESSION"]


@pytest.fixture(scope="session")
def configs() -> list[tuple[str, str]]:
    entries = [e for e in os.environ.get("KPM_TEST_CONFIGS", "").split(",") if e]
    return [tuple(e.rsplit(":", 1)) for e in entries]  # type: ignore[misc]


@pytest.fixture(scope="session")
def driver(address: str, user: str):
    from driver import ProcessManagerDriver

    return ProcessManagerDriver(address, user)
