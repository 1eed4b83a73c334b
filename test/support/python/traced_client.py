#!/usr/bin/env python3
"""A DAQ component that traces its own work: a boot of one process, then its kill, each sent
from confluent-kafka inside a span of the client's (opentelemetry-sdk, exported over OTLP/HTTP
by the standard OTEL_* variables), the span's `traceparent` on the command (CloudEvents'
distributed-tracing extension), each completion waited for.

Driven by test/integration/tracing.test.ts. Prints one JSON document: per command its id, the
trace id and span id of the client's span, the completion's status and its `traceparent`.
Exit status 1 when a completion did not arrive or was not `succeeded`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from opentelemetry import propagate, trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples" / "python"))

from kpm_client import KpmClient, KpmError  # noqa: E402

COMMAND = "daq.kpm.command.{}.v1"


def traced(client: KpmClient, tracer: trace.Tracer, name: str, session: str, data: dict, timeout: float) -> dict:
    """One command inside a client span; its completion and the span's ids."""
    with tracer.start_as_current_span(f"daq {name}", kind=trace.SpanKind.PRODUCER) as span:
        command = client.command(COMMAND.format(name), session, data)
        carrier: dict[str, str] = {}
        propagate.inject(carrier)
        command["traceparent"] = carrier["traceparent"]
        client.publish(command)
        completion = client.completion_of(command, timeout)
        context = span.get_span_context()
        return {
            "commandId": command["id"],
            "traceId": format(context.trace_id, "032x"),
            "spanId": format(context.span_id, "016x"),
            "traceparent": command["traceparent"],
            "status": completion["status"],
            "errors": [e["message"] for e in completion.get("errors", [])],
        }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("session")
    parser.add_argument("--node", required=True, help="the node the process may run on")
    parser.add_argument("--brokers", default=os.environ.get("KPM_KAFKA_BROKERS", "127.0.0.1:19092"))
    parser.add_argument("--topic-prefix", default=os.environ.get("KPM_TOPIC_PREFIX", "kpm"))
    parser.add_argument("--as", dest="acting_user", default="alice")
    parser.add_argument("--timeout", type=float, default=90)
    args = parser.parse_args(argv)

    provider = TracerProvider(resource=Resource.create({"service.name": "daq-python-client"}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    tracer = provider.get_tracer("kpm-tracing-proof")
    client = KpmClient(args.brokers, args.topic_prefix)
    try:
        client.listen()
        boot = {
            "session": args.session,
            "user": args.acting_user,
            "processes": [
                {
                    "name": "ru-01",
                    "executableAndArguments": [{"exec": "daq_application", "args": ["--name", "ru-01"]}],
                    "restriction": {"allowedHosts": [args.node]},
                }
            ],
        }
        booted = traced(client, tracer, "boot", args.session, boot, args.timeout)
        kill = {"query": {"session": args.session, "names": ["^ru-01$"]}, "user": args.acting_user, "gracePeriodSeconds": 1}
        killed = traced(client, tracer, "kill", args.session, kill, args.timeout)
    except KpmError as error:
        print(f"traced_client: {error}", file=sys.stderr)
        return 1
    finally:
        client.close()
        provider.shutdown()  # exports the client's spans before the process ends
    print(json.dumps({"boot": booted, "kill": killed}, indent=2))
    return 0 if booted["status"] == killed["status"] == "succeeded" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
