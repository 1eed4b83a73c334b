"""drunc's enveloped ProcessManagerDriver and SessionManagerDriver as they call a server, written
for kpm from drunc's GRPCDriver of that era (utils/shell_utils.py) and drunc_ui's interfaces:

- a Request carries a copy of the token and, when there is a payload, the payload packed in an
  Any (`Any.Pack`: type URL `type.googleapis.com/dunedaq.druncschema.<Message>`);
- a Response flagged EXECUTED_SUCCESSFULLY is unpacked to the type the driver expects
  (`outformat`): an Any of another type raises UnpackingError (drunc's `unpack_any` checks
  `Any.Is`), which drunc_ui shows as an error page;
- any other flag is logged by drunc and the Response comes back with its raw data (a PlainText or
  a Stacktrace saying why): the Decoded answer keeps the flag and the text;
- a gRPC error ends the call (drunc's driver has no Response to read after one): it is raised.

drunc_ui builds a new driver (an asyncio channel) for each call, with the token
`Token(token='<user>-token', user_name=<user>)`; so does `call` here.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

import grpc
from google.protobuf import any_pb2

from druncschema import generic_pb2
from druncschema import process_manager_pb2 as pm
from druncschema import process_manager_pb2_grpc as pm_grpc
from druncschema import request_response_pb2 as rr
from druncschema import session_manager_pb2 as sm
from druncschema import session_manager_pb2_grpc as sm_grpc
from druncschema import token_pb2

FLAG = rr.ResponseFlag


class UnpackingError(Exception):
    """drunc's: a successful Response whose data is not the expected type."""


def dummy_token(user: str) -> token_pb2.Token:
    return token_pb2.Token(token=f"{user}-token", user_name=user)


@dataclass
class Decoded:
    """drunc's DecodedResponse, with the refusal's text read as drunc reads it."""

    name: str
    flag: int
    data: object = None
    text: str = ""
    children: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.flag == FLAG.EXECUTED_SUCCESSFULLY


def unpack_any(data: any_pb2.Any, outformat):
    if not data.Is(outformat.DESCRIPTOR):
        raise UnpackingError(f"Cannot unpack {data.type_url} to {outformat.DESCRIPTOR.full_name}")
    message = outformat()
    data.Unpack(message)
    return message


def decode(response: rr.Response, outformat) -> Decoded:
    out = Decoded(name=response.name, flag=response.flag)
    if response.flag == FLAG.EXECUTED_SUCCESSFULLY:
        if response.HasField("data"):
            out.data = unpack_any(response.data, outformat)
    elif response.HasField("data"):
        out.data = response.data
        if response.data.Is(generic_pb2.Stacktrace.DESCRIPTOR):
            lines = [line for line in unpack_any(response.data, generic_pb2.Stacktrace).text if line]
            out.text = lines[-1] if lines else ""
        elif response.data.Is(generic_pb2.PlainText.DESCRIPTOR):
            out.text = unpack_any(response.data, generic_pb2.PlainText).text
    out.children = [decode(c, outformat) for c in response.children]
    return out


def request(user: str, payload=None) -> rr.Request:
    if payload is None:
        return rr.Request(token=dummy_token(user))
    data = any_pb2.Any()
    data.Pack(payload)
    return rr.Request(token=dummy_token(user), data=data)


class ProcessManagerDriver:
    """The calls drunc's enveloped driver makes, each on a fresh asyncio channel, timed."""

    def __init__(self, address: str, user: str):
        self.address = address
        self.user = user
        self.latencies: list[tuple[str, float]] = []

    def call(self, command: str, payload=None, outformat=None, raw: rr.Request | None = None) -> Decoded:
        async def once() -> Decoded:
            async with grpc.aio.insecure_channel(self.address) as channel:
                stub = pm_grpc.ProcessManagerStub(channel)
                response = await getattr(stub, command)(raw or request(self.user, payload), timeout=60)
                return decode(response, outformat)

        return self._timed(command, once)

    def call_with_metadata(self, command: str, payload, outformat) -> tuple[Decoded, dict[str, str]]:
        """A call, with the reply's initial metadata (kpm says a kill's plan there)."""
        async def once() -> tuple[Decoded, dict[str, str]]:
            async with grpc.aio.insecure_channel(self.address) as channel:
                stub = pm_grpc.ProcessManagerStub(channel)
                call = getattr(stub, command)(request(self.user, payload), timeout=60)
                response = await call
                return decode(response, outformat), dict(await call.initial_metadata())

        return self._timed(command, once)

    def stream(self, command: str, payload, outformat) -> list[Decoded]:
        async def once() -> list[Decoded]:
            async with grpc.aio.insecure_channel(self.address) as channel:
                stub = pm_grpc.ProcessManagerStub(channel)
                return [decode(r, outformat) async for r in getattr(stub, command)(request(self.user, payload), timeout=60)]

        return self._timed(command, once)

    def _timed(self, command: str, once):
        started = time.perf_counter()
        try:
            return asyncio.run(once())
        finally:
            self.latencies.append((command, time.perf_counter() - started))

    # drunc's ProcessManagerDriver, method for method (outformat as drunc's).
    def describe(self) -> Decoded:
        return self.call("describe", None, rr.Description)

    def boot(self, br: pm.BootRequest) -> Decoded:
        return self.call("boot", br, pm.ProcessInstance)

    def ps(self, query: pm.ProcessQuery) -> Decoded:
        return self.call("ps", query, pm.ProcessInstanceList)

    def kill(self, query: pm.ProcessQuery) -> Decoded:
        return self.call("kill", query, pm.ProcessInstanceList)

    def flush(self, query: pm.ProcessQuery) -> Decoded:
        return self.call("flush", query, pm.ProcessInstanceList)

    def restart(self, query: pm.ProcessQuery) -> Decoded:
        return self.call("restart", query, pm.ProcessInstance)

    def terminate(self, query: pm.ProcessQuery | None = None) -> Decoded:
        return self.call("terminate", query or pm.ProcessQuery(), pm.ProcessInstanceList)

    def logs(self, log_request: pm.LogRequest) -> list[Decoded]:
        return self.stream("logs", log_request, pm.LogLine)


class SessionManagerDriver:
    """drunc_ui's SessionManagerDriver(url, token, aio_channel=False): a plain channel."""

    def __init__(self, address: str, user: str):
        self.channel = grpc.insecure_channel(address)
        self.stub = sm_grpc.SessionManagerStub(self.channel)
        self.user = user

    def close(self) -> None:
        self.channel.close()

    def describe(self) -> Decoded:
        return decode(self.stub.describe(request(self.user), timeout=60), rr.Description)

    def list_all_sessions(self) -> Decoded:
        return decode(self.stub.list_all_sessions(request(self.user), timeout=60), sm.AllActiveSessions)

    def list_all_configs(self) -> Decoded:
        return decode(self.stub.list_all_configs(request(self.user), timeout=60), sm.AllConfigKeys)


def query(*, names=(), uuids=(), user="", session="") -> pm.ProcessQuery:
    return pm.ProcessQuery(
        session=session or "",
        names=list(names),
        user=user or "",
        uuids=[pm.ProcessUUID(uuid=u) for u in uuids],
    )


def boot_request(user: str, session: str, host: str, name: str, execs: list[tuple[str, list[str]]],
                 tree_id: str | None = None, logs_path: str = "") -> pm.BootRequest:
    """As drunc's enveloped driver builds a BootRequest (hostname empty, one allowed host)."""
    metadata = pm.ProcessMetadata(user=user, session=session, name=name, hostname="")
    if tree_id is not None:
        metadata.tree_id = tree_id
    return pm.BootRequest(
        process_description=pm.ProcessDescription(
            metadata=metadata,
            executable_and_arguments=[pm.ProcessDescription.ExecAndArgs(exec=e, args=a) for e, a in execs],
            env={"DUNEDAQ_SESSION": session},
            process_execution_directory="",
            process_logs_path=logs_path,
        ),
        process_restriction=pm.ProcessRestriction(allowed_hosts=[host]),
    )
