#!/usr/bin/env python3
"""Boot a DAQ session from a YAML file over Kafka, follow its processes, then terminate it.

    python=$(scripts/python-env.sh)
    "$python" examples/python/boot_session.py examples/demo-session.yaml

Exit status: 0 when the boot and the terminate succeeded, every booted process was seen ending
and every record read matched docs/schemas; 1 otherwise (the reason is on stderr).
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
import time
from pathlib import Path

import yaml
from confluent_kafka import KafkaException

from kpm_client import TERMINATED, KpmClient, KpmError, Schemas

BOOT = "daq.kpm.command.boot.v1"
TERMINATE = "daq.kpm.command.terminate.v1"
# What a session file's `defaults` may give every process; maps merge, the process's keys win.
DEFAULTABLE = (
    "image executableAndArguments env executionDirectory logsPath restriction labels "
    "annotations resources"
).split()
MERGED_MAPS = {"env", "labels", "annotations", "restriction", "resources"}


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("session_file", type=Path, help="YAML: session, user, defaults, processes")
    parser.add_argument("--session", help="the session name (overrides the file's)")
    parser.add_argument(
        "--as", dest="as_user", help="who boots it (default: the file's, KPM_USER, login)"
    )
    parser.add_argument(
        "--brokers",
        default=os.environ.get("KPM_KAFKA_BROKERS", "127.0.0.1:19092"),
        help="bootstrap servers (KPM_KAFKA_BROKERS, default 127.0.0.1:19092)",
    )
    parser.add_argument(
        "--topic-prefix",
        default=os.environ.get("KPM_TOPIC_PREFIX", "kpm"),
        help="topic prefix (KPM_TOPIC_PREFIX, default kpm)",
    )
    parser.add_argument("--schemas", type=Path, help="directory of the contract's JSON Schemas")
    parser.add_argument("--timeout", type=float, default=120, help="seconds per command")
    parser.add_argument(
        "--hold", type=float, default=0, help="seconds to follow terminations before terminating"
    )
    parser.add_argument("--json", action="store_true", help="print a JSON summary on stdout")
    return parser.parse_args(argv)


def boot_data(file: Path, session: str | None, user: str | None) -> dict:
    """The boot command's data from a session file (the shape of examples/demo-session.yaml)."""
    document = yaml.safe_load(file.read_text(encoding="utf-8")) or {}
    defaults = document.get("defaults") or {}
    processes = []
    for process in document.get("processes") or []:
        merged = {key: defaults[key] for key in DEFAULTABLE if key in defaults}
        for key, value in process.items():
            both_maps = key in MERGED_MAPS and isinstance(merged.get(key), dict)
            merged[key] = {**merged[key], **value} if both_maps else value
        processes.append(merged)
    return {
        "session": session or document.get("session"),
        "user": user or document.get("user") or os.environ.get("KPM_USER") or getpass.getuser(),
        "processes": processes,
    }


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def follow(client: KpmClient, session: str, seconds: float) -> None:
    """Reads (and validates) records for `seconds`, reporting this session's terminations."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        record = client.poll(min(left, 1.0))
        if record and not record.problems and record.event["type"] == TERMINATED:
            data = record.event["data"]
            if data["session"] == session:
                say(f"  ended: {data['name']} exit {data['exitCode']} ({data.get('reason', '')})")


def await_terminations(client: KpmClient, session: str, uuids: set[str], timeout: float) -> None:
    """Waits until every booted process has a termination record."""
    client.wait_until(
        lambda: uuids <= {t["uuid"] for t in client.terminations(session)},
        timeout,
        f"terminations of all {len(uuids)} processes of {session}",
    )


def boot(client: KpmClient, data: dict, timeout: float) -> dict:
    """Boots and reports each process; a boot that did not succeed is terminated and reported."""
    session = data["session"]
    say(f"booting {len(data['processes'])} processes in session {session}")
    booted, _ = client.request(BOOT, session, data, timeout)
    if booted["status"] != "succeeded":
        # Whatever did start must not outlive us.
        terminate(client, session, data["user"], timeout)
        raise KpmError(f"boot {booted['status']}: {json.dumps(booted.get('errors', []))}")
    for process in booted["processes"]:
        metadata = process["description"]["metadata"]
        say(f"  {process['statusCode']}: {metadata['name']} on {process.get('nodeName', '?')}")
    return booted


def terminate(client: KpmClient, session: str, user: str, timeout: float) -> dict:
    say(f"terminating session {session}")
    data = {"session": session, "user": user}
    terminated, _ = client.request(TERMINATE, session, data, timeout)
    if terminated["status"] != "succeeded":
        raise KpmError(f"terminate {terminated['status']}: {terminated.get('errors', [])}")
    return terminated


def check_contract(client: KpmClient) -> None:
    if client.invalid:
        first = client.invalid[0]
        raise KpmError(
            f"{len(client.invalid)} records broke the contract, first "
            f"{first.topic}/{first.partition}@{first.offset}: {'; '.join(first.problems)}"
        )


def run(args: argparse.Namespace) -> dict:
    schemas = Schemas(args.schemas) if args.schemas else None
    client = KpmClient(args.brokers, args.topic_prefix, schemas)
    try:
        data = boot_data(args.session_file, args.session, args.as_user)
        session = data["session"]
        client.listen()  # position on completions and terminations BEFORE publishing
        booted = boot(client, data, args.timeout)
        uuids = {p["uuid"] for p in booted["processes"]}
        follow(client, session, args.hold)
        terminated = terminate(client, session, data["user"], args.timeout)
        await_terminations(client, session, uuids, args.timeout)
        ended = {t["uuid"]: t for t in client.terminations(session)}
        for uuid in sorted(uuids, key=lambda u: ended[u]["name"]):
            say(f"  ended: {ended[uuid]['name']} exit {ended[uuid]['exitCode']}")
        check_contract(client)
        return {
            "session": session,
            "boot": booted,
            "terminate": terminated,
            "terminations": [ended[u] for u in sorted(uuids)],
            "recordsValidated": len(client.records),
        }
    finally:
        client.close()


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        summary = run(args)
    except (KpmError, KafkaException, OSError, yaml.YAMLError) as error:
        say(f"boot_session: {error}")
        return 1
    say(f"done: {summary['recordsValidated']} records read, all valid")
    if args.json:
        print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
