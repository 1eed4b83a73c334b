"""A drunc-shaped DUNE session: the BootRequests drunc's driver builds from an OKS session, in
drunc's order — the infrastructure applications first (tree ids under the next free prefix, 1),
then the DAQ tree under prefix 0: the root controller "0", segment controllers "0.N", their
applications "0.N.M", an application of the root segment "0.N".
"""

from __future__ import annotations

from druncschema import process_manager_pb2 as pm

from driver import dummy_token

# (tree id, name, executable, arguments) in drunc's boot order.
DUNE_TREE = [
    ("1.0", "local-connection-server", "gunicorn",
     ["-b", "0.0.0.0:30005", "--workers=1", "--worker-class=gthread", "--threads=2",
      "--timeout", "0", "--pid", "gunicorn.pid", "connection-service.connection-flask:app"]),
    ("0", "root-controller", "drunc-controller",
     ["-c", "grpc://0.0.0.0:30100", "-n", "root-controller", "-s", "{session}"]),
    ("0.1", "ru-controller", "drunc-controller", ["-c", "grpc://0.0.0.0:30101", "-n", "ru-controller"]),
    ("0.1.1", "ru-01", "daq_application", ["--name", "ru-01", "-c", "rest://localhost:30006"]),
    ("0.1.2", "ru-02", "daq_application", ["--name", "ru-02", "-c", "rest://localhost:30006"]),
    ("0.2", "df-controller", "drunc-controller", ["-c", "grpc://0.0.0.0:30102", "-n", "df-controller"]),
    ("0.2.1", "df-01", "daq_application", ["--name", "df-01", "-c", "rest://localhost:30006"]),
    ("0.3", "trigger", "daq_application", ["--name", "trigger", "-c", "rest://localhost:30006"]),
]

RTE = "/cvmfs/dunedaq.opensciencegrid.org/spack/releases/fddaq-v5.3.0/daq_app_rte.sh"


def boot_request(user: str, session: str, host: str, tree_id: str, name: str, exe: str,
                 args: list[str], rte: str | None = RTE) -> pm.BootRequest:
    """As drunc's _build_boot_request: source the run-time environment, then the executable."""
    execs = []
    if rte:
        execs.append(pm.ProcessDescription.ExecAndArgs(exec="source", args=[rte]))
    execs.append(pm.ProcessDescription.ExecAndArgs(exec=exe, args=[a.format(session=session) for a in args]))
    return pm.BootRequest(
        token=dummy_token(user),
        process_description=pm.ProcessDescription(
            metadata=pm.ProcessMetadata(user=user, session=session, name=name, hostname=host, tree_id=tree_id),
            executable_and_arguments=execs,
            env={
                "DUNEDAQ_SESSION": session,
                "DUNE_DAQ_BASE_RELEASE": "fddaq-v5.3.0",
                "SPACK_RELEASES_DIR": "/cvmfs/dunedaq.opensciencegrid.org/spack/releases",
                "DRUNC_HOST_NAME": host,
            },
            process_execution_directory="/home/daq/work",
            process_logs_path=f"/home/daq/work/log_{user}_{session}_{name}.txt",
        ),
        process_restriction=pm.ProcessRestriction(allowed_hosts=[host]),
    )


def dune_session(user: str, session: str, nodes: list[str]) -> list[pm.BootRequest]:
    return [
        boot_request(user, session, nodes[i % len(nodes)], tree_id, name, exe, args)
        for i, (tree_id, name, exe, args) in enumerate(DUNE_TREE)
    ]


def flat_session(user: str, session: str, nodes: list[str], n: int) -> list[pm.BootRequest]:
    """n applications under one controller (the bench's sessions of 1 and 100 processes)."""
    return [
        boot_request(user, session, nodes[i % len(nodes)], f"0.{i}", f"app-{i:03d}",
                     "daq_application", ["--name", f"app-{i:03d}"])
        for i in range(n)
    ]
