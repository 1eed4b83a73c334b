"""A small kpm client on confluent-kafka at its default settings, and nothing else of kpm's.

It speaks kpm's contract as any component may: CloudEvents 1.0 in structured JSON mode on
`<prefix>.commands`, keyed by session; the answer is the one record on `<prefix>.completions`
whose `data.commandId` is the command's `id`. Every record read is validated against the JSON
Schemas in docs/schemas (one file per CloudEvent type).
"""

from __future__ import annotations

import json
import socket
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterable

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from jsonschema import Draft7Validator

COMPLETED = "daq.kpm.command.completed.v1"
TERMINATED = "daq.kpm.process.terminated.v1"
DEFAULT_SCHEMAS = Path(__file__).resolve().parents[2] / "docs" / "schemas"


class KpmError(Exception):
    """Something the caller should report and exit non-zero for."""


class Schemas:
    """The contract's JSON Schemas, one per CloudEvent type (`<type>.json`)."""

    def __init__(self, directory: Path = DEFAULT_SCHEMAS) -> None:
        self.validators: dict[str, Draft7Validator] = {}
        for file in sorted(directory.glob("*.json")):
            schema = json.loads(file.read_text(encoding="utf-8"))
            checker = Draft7Validator.FORMAT_CHECKER
            self.validators[file.stem] = Draft7Validator(schema, format_checker=checker)
        if not self.validators:
            raise KpmError(f"no JSON Schemas in {directory}")

    def problems(self, event: object) -> list[str]:
        """Why `event` breaks the contract; empty when it is valid."""
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            return ["not a CloudEvent: no string `type`"]
        validator = self.validators.get(event["type"])
        if validator is None:
            return [f"type {event['type']!r} has no schema in the contract"]
        return [
            f"{'/'.join(str(p) for p in error.absolute_path) or '(event)'}: {error.message}"
            for error in validator.iter_errors(event)
        ]


@dataclass
class Record:
    """One record read from a kpm topic, parsed and checked."""

    topic: str
    partition: int
    offset: int
    event: dict
    problems: list[str] = field(default_factory=list)


def now_iso() -> str:
    """RFC 3339 in UTC with milliseconds, as kpm writes `time`."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class KpmClient:
    """Publishes commands and reads completions and terminations under one topic prefix."""

    def __init__(
        self,
        brokers: str,
        topic_prefix: str = "kpm",
        schemas: Schemas | None = None,
        source: str | None = None,
    ) -> None:
        self.prefix = topic_prefix
        self.schemas = schemas or Schemas()
        self.source = source or f"/kpm/python/{socket.gethostname()}"
        # Defaults on purpose: no partitioner, no idempotence settings. librdkafka hashes the key
        # with CRC32 (`consistent_random`), where kafkajs uses murmur2 (see the README).
        self.producer = Producer({"bootstrap.servers": brokers})
        # Assigned, never subscribed: the group id is only a name; nothing is committed.
        self.consumer = Consumer(
            {
                "bootstrap.servers": brokers,
                "group.id": f"kpm-python-{uuid.uuid4()}",
                "enable.auto.commit": False,
            }
        )
        self.records: list[Record] = []
        self.invalid: list[Record] = []

    def topic(self, name: str) -> str:
        return f"{self.prefix}.{name}"

    def listen(self, names: Iterable[str] = ("completions", "terminations")) -> None:
        """Positions the consumer at the end of every partition of these topics.

        Call it BEFORE publishing: a completion that arrives between a publish and a later
        `assign` at the end of the topic would be skipped, and the wait would never end.
        """
        partitions: list[TopicPartition] = []
        for name in names:
            topic = self.topic(name)
            metadata = self.consumer.list_topics(topic, timeout=10).topics[topic]
            if metadata.error is not None:
                raise KpmError(f"topic {topic}: {metadata.error.str()}")
            for partition in sorted(metadata.partitions):
                _, high = self.consumer.get_watermark_offsets(
                    TopicPartition(topic, partition), timeout=10
                )
                partitions.append(TopicPartition(topic, partition, high))
        self.consumer.assign(partitions)

    def command(self, command_type: str, session: str, data: dict) -> dict:
        """A command as a structured CloudEvent; its `id` names the completion to wait for."""
        event = {
            "specversion": "1.0",
            "id": str(uuid.uuid4()),
            "source": self.source,
            "type": command_type,
            "time": now_iso(),
            "subject": session,
            "datacontenttype": "application/json",
            "data": data,
        }
        problems = self.schemas.problems(event)
        if problems:
            raise KpmError(f"{command_type} breaks the contract: " + "; ".join(problems))
        return event

    def publish(self, event: dict, attempts: int = 3) -> int:
        """Publishes `event` keyed by its session; returns the partition the broker acked.

        A failed delivery is retried with the SAME event (same `id`), so kpm de-duplicates it
        and the completion still names the id this caller waits for.
        """
        for attempt in range(1, attempts + 1):
            outcome: dict = {}

            def delivered(error, message) -> None:
                outcome["error"], outcome["partition"] = error, message.partition()

            self.producer.produce(
                self.topic("commands"),
                key=event["subject"].encode(),
                value=json.dumps(event).encode(),
                headers=[("content-type", b"application/cloudevents+json")],
                on_delivery=delivered,
            )
            self.producer.flush(30)
            if "partition" in outcome and outcome["error"] is None:
                return outcome["partition"]
            reason = outcome.get("error") or "no delivery report within 30 s"
            if attempt == attempts:
                raise KpmError(f"{event['type']} {event['id']} not delivered: {reason}")
        raise AssertionError("unreachable")

    def poll(self, timeout_seconds: float) -> Record | None:
        """The next record read (validated), or None when none came within the timeout."""
        message = self.consumer.poll(timeout_seconds)
        if message is None:
            return None
        if message.error() is not None:
            raise KafkaException(message.error())
        try:
            event = json.loads(message.value())
            problems = self.schemas.problems(event)
        except (ValueError, UnicodeDecodeError) as error:
            event, problems = {}, [f"not JSON: {error}"]
        record = Record(message.topic(), message.partition(), message.offset(), event, problems)
        self.records.append(record)
        if problems:
            self.invalid.append(record)
        return record

    def wait_for(
        self, matches: Callable[[Record], bool], timeout_seconds: float, what: str
    ) -> Record:
        """Reads until a record `matches`; every record read on the way is kept and validated."""
        deadline = time.monotonic() + timeout_seconds
        while (left := deadline - time.monotonic()) > 0:
            record = self.poll(min(left, 1.0))
            if record is not None and not record.problems and matches(record):
                return record
        raise KpmError(f"{what} did not arrive within {timeout_seconds:g} s")

    def wait_until(self, condition: Callable[[], bool], timeout_seconds: float, what: str) -> None:
        """Reads (and validates) records until `condition()` holds, e.g. on `terminations`."""
        deadline = time.monotonic() + timeout_seconds
        while not condition():
            left = deadline - time.monotonic()
            if left <= 0:
                raise KpmError(f"{what} did not arrive within {timeout_seconds:g} s")
            self.poll(min(left, 1.0))

    def completion_of(self, command: dict, timeout_seconds: float) -> dict:
        """The completion whose `data.commandId` is the command's id."""
        record = self.wait_for(
            lambda r: r.event["type"] == COMPLETED
            and r.event["data"]["commandId"] == command["id"],
            timeout_seconds,
            f"the completion of {command['type']} {command['id']}",
        )
        return record.event["data"]

    def request(
        self, command_type: str, session: str, data: dict, timeout_seconds: float
    ) -> tuple[dict, int]:
        """Publishes a command and waits for its completion (call `listen` once before)."""
        command = self.command(command_type, session, data)
        partition = self.publish(command)
        return self.completion_of(command, timeout_seconds), partition

    def terminations(self, session: str) -> list[dict]:
        """The terminations of `session` read so far."""
        return [
            r.event["data"]
            for r in self.records
            if not r.problems and r.event["type"] == TERMINATED and r.event["subject"] == session
        ]

    def close(self) -> None:
        self.producer.flush(10)
        self.consumer.close()
