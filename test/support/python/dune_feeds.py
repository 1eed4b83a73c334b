"""An independent consumer of DUNE's feeds, as a DUNE tool would read them: confluent-kafka at
its defaults and protobuf classes generated here, at start, from the project's .proto files
(apps/state/proto) with grpc_tools' protoc. Prints one JSON line per record, after a first
{"ready": ...} line once it is positioned at the end of every topic.

    dune_feeds.py --brokers 127.0.0.1:19092 --broadcast control.s.process_manager \
        --opmon monitoring.opmon_stream --ers ers_stream
"""
import argparse
import importlib
import json
import os
import sys
import tempfile
import time

from confluent_kafka import Consumer, TopicPartition
from grpc_tools import protoc

try:
    from importlib.resources import files
except ImportError:  # pragma: no cover
    from importlib_resources import files

PROTOS = [
    "druncschema/broadcast.proto",
    "druncschema/generic.proto",
    "druncschema/opmon/process_manager.proto",
    "opmonlib/opmon_entry.proto",
    "ers/issue.proto",
]


def generate(proto_dir):
    out = tempfile.mkdtemp(prefix="dune-feeds-")
    google = str(files("grpc_tools") / "_proto")
    args = ["protoc", f"-I{proto_dir}", f"-I{google}", f"--python_out={out}", *PROTOS]
    if protoc.main(args) != 0:
        raise SystemExit(f"protoc failed on {proto_dir}")
    sys.path.insert(0, out)
    return {
        "broadcast": importlib.import_module("druncschema.broadcast_pb2"),
        "generic": importlib.import_module("druncschema.generic_pb2"),
        "opmon": importlib.import_module("opmonlib.opmon_entry_pb2"),
        "ers": importlib.import_module("ers.issue_pb2"),
    }


def decode(kind, pb, record):
    value = record.value()
    if kind == "broadcast":
        bm = pb["broadcast"].BroadcastMessage()
        bm.ParseFromString(value)
        text = pb["generic"].PlainText()
        bm.data.Unpack(text)
        return {
            "type": pb["broadcast"].BroadcastType.Name(bm.type),
            "text": text.text,
            "emitter": {"process": bm.emitter.process, "session": bm.emitter.session},
            "typeUrl": bm.data.type_url,
        }
    if kind == "opmon":
        entry = pb["opmon"].OpMonEntry()
        entry.ParseFromString(value)
        return {
            "session": entry.origin.session,
            "application": entry.origin.application,
            "measurement": entry.measurement,
            "data": {k: getattr(v, v.WhichOneof("kind")) for k, v in entry.data.items()},
            "time": entry.time.seconds + entry.time.nanos / 1e9,
        }
    issue = pb["ers"].IssueChain()
    issue.ParseFromString(value)
    return {
        "session": issue.session,
        "application": issue.application,
        "severity": issue.final.severity,
        "message": issue.final.message,
        "name": issue.final.name,
        "timeNs": str(issue.final.time),
        "parameters": dict(issue.final.parameters),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--brokers", required=True)
    parser.add_argument("--broadcast", required=True)
    parser.add_argument("--opmon", required=True)
    parser.add_argument("--ers", required=True)
    parser.add_argument("--proto-dir", default=os.path.join("apps", "state", "proto"))
    args = parser.parse_args()
    pb = generate(args.proto_dir)
    kinds = {args.broadcast: "broadcast", args.opmon: "opmon", args.ers: "ers"}

    consumer = Consumer(
        {
            "bootstrap.servers": args.brokers,
            "group.id": f"dune-feeds-{os.getpid()}",
            "enable.auto.commit": False,
        }
    )
    metadata = consumer.list_topics(timeout=30)
    assignment = []
    for topic in kinds:
        if topic not in metadata.topics or metadata.topics[topic].error is not None:
            raise SystemExit(f"no topic {topic}")
        for partition in metadata.topics[topic].partitions:
            _, high = consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=30)
            assignment.append(TopicPartition(topic, partition, high))
    consumer.assign(assignment)
    print(json.dumps({"ready": [t.topic for t in assignment]}), flush=True)

    while True:
        record = consumer.poll(1.0)
        if record is None:
            continue
        if record.error():
            print(json.dumps({"error": str(record.error())}), flush=True)
            continue
        kind = kinds[record.topic()]
        out = {
            "kind": kind,
            "topic": record.topic(),
            "key": record.key().decode() if record.key() is not None else None,
            "receivedAt": time.time(),
            **decode(kind, pb, record),
        }
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
