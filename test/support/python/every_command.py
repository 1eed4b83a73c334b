#!/usr/bin/env python3
"""Every kpm command type from confluent-kafka at its default settings, for each session given.

Driven by test/integration/python-client.test.ts: per session it boots three processes, kills
one, then sends ps, logs, restart, kill, flush, ps and terminate, each waited for by
`data.commandId`. It prints one JSON document: per session, the steps with
the partition librdkafka's default partitioner chose and the completion in a comparable form.
Exit status 1 when a completion did not arrive or a record broke the contract.

With --gate it stops before each kill and the terminate: it prints {"gate": <session>, "step":
<command>} on a line of its own and goes on when a line arrives on stdin. The driver answers once
the session's pods run: a kill before the node started a pod ends it with no exit code, so the
answers would depend on how fast the node is, not on the client.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples" / "python"))

from kpm_client import KpmClient, KpmError  # noqa: E402

COMMAND = "daq.kpm.command.{}.v1"


def processes(session: str) -> list[dict]:
    def app(name: str, tree_id: str, annotations: dict) -> dict:
        return {
            "name": name,
            "treeId": tree_id,
            "executableAndArguments": [{"exec": "daq_application", "args": ["--name", name]}],
            "env": {"DUNEDAQ_SESSION": session},
            "annotations": annotations,
        }

    return [
        app("root", "0", {"sim.kpm.daq/graceful": "true"}),
        app("ru-01", "0.1.1", {}),
        app("ru-02", "0.1.2", {}),
    ]


def comparable(completion: dict) -> dict:
    """What must be the same whichever client sent the command (ids and times differ)."""
    return {
        "commandType": completion["commandType"],
        "status": completion["status"],
        "processes": sorted(
            [p["description"]["metadata"]["name"], p["statusCode"], p.get("returnCode")]
            for p in completion["processes"]
        ),
        "logs": len(completion["logs"]) if "logs" in completion else None,
        "errors": [e["message"] for e in completion.get("errors", [])],
    }


class Steps:
    """Sends commands for one session and records each answer."""

    def __init__(self, client: KpmClient, session: str, timeout: float, gate: bool) -> None:
        self.client, self.session, self.timeout, self.gate = client, session, timeout, gate
        self.recorded: list[dict] = []

    def send(self, name: str, data: dict) -> dict:
        if self.gate and name in ("kill", "terminate"):
            print(json.dumps({"gate": self.session, "step": name}), flush=True)
            if not sys.stdin.readline():
                raise KpmError(f"the driver closed stdin at the gate before {name}")
        completion, partition = self.client.request(
            COMMAND.format(name), self.session, data, self.timeout
        )
        self.recorded.append({"command": name, "partition": partition, **comparable(completion)})
        return completion

    def uuid_of(self, completion: dict, name: str) -> str:
        return next(
            p["uuid"]
            for p in completion["processes"]
            if p["description"]["metadata"]["name"] == name
        )


def every_command(
    client: KpmClient, session: str, user: str, timeout: float, gate: bool
) -> list[dict]:
    steps = Steps(client, session, timeout, gate)
    boot = {"session": session, "user": user, "processes": processes(session)}
    booted = steps.send("boot", boot)
    ru01 = steps.uuid_of(booted, "ru-01")
    ru01_only = {"session": session, "names": ["^ru-01$"]}
    ru02_only = {"session": session, "names": ["^ru-02$"]}
    steps.send("kill", {"query": ru02_only, "user": user, "gracePeriodSeconds": 1})
    # A kill completes once its terminations are applied, so this ps already lists ru-02 DEAD.
    steps.send("ps", {"query": {"session": session}})
    steps.send("logs", {"query": ru01_only, "user": user, "tailLines": 10})
    steps.send("restart", {"query": {"uuids": [ru01]}, "user": user})
    steps.send("kill", {"query": ru01_only, "user": user, "gracePeriodSeconds": 1})
    steps.send("flush", {"query": {"session": session}, "user": user})
    steps.send("ps", {"query": {"session": session}})
    steps.send("terminate", {"session": session, "user": user})
    return steps.recorded


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("sessions", nargs="+")
    brokers = os.environ.get("KPM_KAFKA_BROKERS", "127.0.0.1:19092")
    parser.add_argument("--brokers", default=brokers)
    parser.add_argument("--topic-prefix", default=os.environ.get("KPM_TOPIC_PREFIX", "kpm"))
    parser.add_argument("--as", dest="acting_user", default="alice")
    parser.add_argument("--timeout", type=float, default=90)
    parser.add_argument("--gate", action="store_true", help="stop before each kill (see above)")
    args = parser.parse_args(argv)
    client = KpmClient(args.brokers, args.topic_prefix)
    try:
        client.listen()
        result = {
            s: every_command(client, s, args.acting_user, args.timeout, args.gate) for s in args.sessions
        }
        if client.invalid:
            first = client.invalid[0]
            raise KpmError(f"{len(client.invalid)} invalid records, first: {first.problems}")
    except KpmError as error:
        print(f"every_command: {error}", file=sys.stderr)
        return 1
    finally:
        client.close()
    print(json.dumps({"sessions": result, "recordsValidated": len(client.records)}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
