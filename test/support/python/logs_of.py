#!/usr/bin/env python3
"""The last lines of one process's log, asked with a `logs` command from confluent-kafka at its
default settings (examples/python/kpm_client.py). Prints the completion's `logs` as JSON.

Driven by test/integration/real-node-session.test.ts: a Python DAQ component reading a real
process's output on the local stack's real node.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples" / "python"))

from kpm_client import KpmClient  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--brokers", required=True)
    parser.add_argument("--topic-prefix", required=True)
    parser.add_argument("--session", required=True)
    parser.add_argument("--name", required=True, help="a name pattern selecting one process")
    parser.add_argument("--as", dest="acting_user", required=True)
    parser.add_argument("--tail", type=int, default=20)
    args = parser.parse_args()

    client = KpmClient(args.brokers, args.topic_prefix)
    try:
        client.listen(["completions"])
        query = {"session": args.session, "names": [args.name]}
        data = {"query": query, "user": args.acting_user, "tailLines": args.tail}
        completion, _ = client.request(
            "daq.kpm.command.logs.v1", args.session, data, timeout_seconds=60
        )
    finally:
        client.close()
    print(json.dumps({"status": completion["status"], "logs": completion.get("logs", [])}))
    return 0 if completion["status"] == "succeeded" else 1


if __name__ == "__main__":
    sys.exit(main())
