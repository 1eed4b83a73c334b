"""drunc's ProcessManagerDriver as it calls a process manager, written for kpm from drunc's
driver (process_manager_driver.py): an insecure channel with keepalive pings every 60 s, the
druncschema stubs, the token copied into every message, the same per-call timeouts (boot 60 s,
terminate 130 s, the rest 60 s), and drunc's reading of errors (grpcio-status's rich status:
ErrorInfo, BadRequest…). The messages it sends are the ones drunc's driver and shells build.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from druncschema import description_pb2  # noqa: F401  (registers the type)
from druncschema import process_manager_pb2 as pm
from druncschema import process_manager_pb2_grpc as pm_grpc
from druncschema import request_response_pb2 as rr
from druncschema import token_pb2


def dummy_token(user: str) -> token_pb2.Token:
    """drunc's shells: Token(token=f"{user}-token", user_name=user)."""
    return token_pb2.Token(token=f"{user}-token", user_name=user)


@dataclass
class RichError:
    """What drunc's extract_grpc_rich_error reads from a failed call."""

    code: grpc.StatusCode
    message: str
    reason: str = ""
    domain: str = ""
    metadata: dict[str, str] = field(default_factory=dict)
    violations: list[tuple[str, str]] = field(default_factory=list)


def rich_error(error: grpc.RpcError) -> RichError:
    status = rpc_status.from_call(error)
    assert status is not None, f"no google.rpc.Status in the trailer of {error.code()}: {error.details()}"
    out = RichError(code=error.code(), message=status.message)
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            out.reason, out.domain, out.metadata = info.reason, info.domain, dict(info.metadata)
        elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            out.violations += [(v.field, v.description) for v in bad.field_violations]
    return out


class ProcessManagerDriver:
    """The calls drunc's driver makes, timed (each call's latency is kept for the bench)."""

    def __init__(self, address: str, user: str, keepalive_ms: int = 60000):
        self.user = user
        self.token = dummy_token(user)
        options = [("grpc.keepalive_time_ms", keepalive_ms)]
        self.channel = grpc.insecure_channel(address, options=options)
        self.stub = pm_grpc.ProcessManagerStub(self.channel)
        self.latencies: list[tuple[str, float]] = []

    def close(self) -> None:
        self.channel.close()

    def _timed(self, rpc: str, call, request, timeout: float):
        started = time.perf_counter()
        try:
            return call(request, timeout=timeout)
        finally:
            self.latencies.append((rpc, time.perf_counter() - started))

    def describe(self, timeout: float = 60):
        return self._timed("describe", self.stub.describe, rr.Request(token=self._token()), timeout)

    def boot(self, request: pm.BootRequest, timeout: float = 60) -> pm.ProcessInstanceList:
        return self._timed("boot", self.stub.boot, request, timeout)

    def terminate(self, timeout: float = 130) -> pm.ProcessInstanceList:
        return self._timed("terminate", self.stub.terminate, rr.Request(token=self._token()), timeout)

    def kill(self, query: pm.ProcessQuery, timeout: float = 60) -> pm.ProcessInstanceList:
        query.token.CopyFrom(self.token)
        return self._timed("kill", self.stub.kill, query, timeout)

    def kill_with_metadata(self, query: pm.ProcessQuery, timeout: float = 60):
        """kill, with the reply's initial metadata (kpm says its kill plan there)."""
        query.token.CopyFrom(self.token)
        return self._with_metadata("kill", self.stub.kill, query, timeout)

    def terminate_with_metadata(self, timeout: float = 130):
        return self._with_metadata("terminate", self.stub.terminate, rr.Request(token=self._token()), timeout)

    def _with_metadata(self, rpc: str, call, request, timeout: float):
        answer, rpc_call = self._timed(rpc, call.with_call, request, timeout)
        return answer, dict(rpc_call.initial_metadata())

    def ps(self, query: pm.ProcessQuery, timeout: float = 60) -> pm.ProcessInstanceList:
        query.token.CopyFrom(self.token)
        return self._timed("ps", self.stub.ps, query, timeout)

    def flush(self, query: pm.ProcessQuery, timeout: float = 60) -> pm.ProcessInstanceList:
        query.token.CopyFrom(self.token)
        return self._timed("flush", self.stub.flush, query, timeout)

    def restart(self, query: pm.ProcessQuery, timeout: float = 60) -> pm.ProcessInstanceList:
        query.token.CopyFrom(self.token)
        return self._timed("restart", self.stub.restart, query, timeout)

    def logs(self, request: pm.LogRequest, timeout: float = 60) -> pm.LogLines:
        request.token.CopyFrom(self.token)
        return self._timed("logs", self.stub.logs, request, timeout)

    def _token(self) -> token_pb2.Token:
        t = token_pb2.Token()
        t.CopyFrom(self.token)
        return t


def query(*, names=(), uuids=(), user="", session="") -> pm.ProcessQuery:
    """As drunc's generate_process_query builds it: empty strings for selectors not given."""
    return pm.ProcessQuery(
        session=session or "",
        names=list(names),
        user=user or "",
        uuids=[pm.ProcessUUID(uuid=u) for u in uuids],
    )
