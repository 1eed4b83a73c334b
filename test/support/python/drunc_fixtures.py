"""What the drunc Python suites of both wire eras share (drunc_gateway: druncschema 1.1.0,
drunc_enveloped: the enveloped era): stubs generated at the start of a run with grpcio-tools from
one era's .proto files, as druncschema generates its own (nothing generated is kept), and the
fixtures read from the environment the integration test sets. Each era runs in a Python process
of its own: their messages share names.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest


def eventually(ask, accept, timeout: float = 60):
    """Ask again until the answer is accepted: kpm's boot of an infrastructure application
    answers once its pod exists, and drunc's clients of either era have no event to wait on.
    Fails with the last answer."""
    deadline = time.monotonic() + timeout
    while True:
        answer = ask()
        if accept(answer) or time.monotonic() > deadline:
            assert accept(answer), answer
            return answer
        time.sleep(0.5)


def install_stubs(proto_dir: Path, name: str) -> None:
    """Generates the stubs of proto_dir/druncschema/*.proto and puts them on sys.path."""
    from grpc_tools import protoc

    tmp = Path(os.environ.get("TMPDIR", "/tmp"))
    out = Path(os.environ.get("KPM_STUB_DIR") or tmp / f"{name}-{os.getpid()}")
    out.mkdir(parents=True, exist_ok=True)
    include = Path(protoc.__file__).parent / "_proto"
    files = sorted(str(p.relative_to(proto_dir)) for p in (proto_dir / "druncschema").glob("*.proto"))
    code = protoc.main(
        [
            "grpc_tools.protoc",
            f"-I{proto_dir}",
            f"-I{include}",
            f"--python_out={out}",
            f"--grpc_python_out={out}",
            *files,
        ]
    )
    if code != 0:
        raise RuntimeError(f"protoc failed ({code}) on {files}")
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
