"""A Ray cluster of several nodes on this machine, each node in its own network namespace on a private bridge.

    with NetnsCluster(tmp_path, workers=2) as cluster:      # raises Unavailable (a reason) where it cannot be built
        cluster.run(["python", "-m", "genevals", ...], node="head")   # the driver, inside the head's namespace
        cluster.kill("w1")                                  # a worker node lost: every process of its namespace

Each node is a namespace ``gv<suffix>-<node>`` holding one end of a veth pair whose other end is on the bridge
``gvb<suffix>``; the suffix is random, and the subnet (``10.231.N.0/24``) one that no interface of this machine
uses, so parallel runs do not clash. The bridge itself has ``.1``, which is where a test's servers bind (see
:meth:`NetnsCluster.host`): the machine's side of a private network the test creates and removes, the
multi-host equivalent of the project's 127.0.0.1 rule. Nodes have ``.10`` (head), ``.11``, ``.12``...

Every process a node runs lives in that node's namespace, so ``ip netns pids`` lists exactly the processes this
cluster started (never another Ray of this machine; ``ray stop`` would kill those too), and teardown kills
them, then removes the namespaces, veths and bridge. Every step is bounded in time.
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence

#: Ray's GCS declares a node dead after 3 missed checks 0.5 s apart (default 5 x 3 s): a lost node is noticed
#: in about 2 s, so its orphaned judge calls have long finished before its work is retried elsewhere.
#: Clusters on (a local Ray of genevals' own turns them off in its process's environment), token authentication
#: off (the nodes and the driver are all this test's, on a bridge nothing else is on).
RAY_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "1", "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0",
           "RAY_health_check_period_ms": "500", "RAY_health_check_timeout_ms": "1000",
           "RAY_health_check_failure_threshold": "3", "RAY_health_check_initial_delay_ms": "0"}
HEAD_PORT = 6379
STEP_TIMEOUT = 20


class Unavailable(RuntimeError):
    """Network namespaces or bridges cannot be made here (not root, no ``ip``, EPERM): the reason to skip."""


def _ip(*args: str, netns: str | None = None, check: bool = True) -> subprocess.CompletedProcess:
    cmd = ["ip", *(["-n", netns] if netns else []), *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=STEP_TIMEOUT)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {done.stderr.strip()}")
    return done


def _free_subnet() -> int:
    """A third octet N such that no interface of this machine has an address in 10.231.N.0/24."""
    used = subprocess.run(["ip", "-o", "-4", "addr"], capture_output=True, text=True, timeout=STEP_TIMEOUT).stdout
    for _ in range(200):
        n = 1 + secrets.randbelow(254)
        if f" 10.231.{n}." not in used:
            return n
    raise Unavailable("no free 10.231.N.0/24 subnet")


class NetnsCluster:
    def __init__(self, tmp: Path, workers: int = 2, cpus: int = 2, object_store_mb: int = 100,
                 up: int | None = None) -> None:
        """``workers`` worker nodes of ``cpus`` CPUs each, ``up`` of them (default: all) started at once; the
        others can join later (:meth:`join`)."""
        self.tmp = Path(tmp)
        self.suffix = secrets.token_hex(3)
        self.nodes = ["head", *(f"w{i}" for i in range(1, workers + 1))]
        self.cpus, self.object_store_mb = cpus, object_store_mb
        self.up = workers if up is None else up
        self.bridge = f"gvb{self.suffix}"
        self.net = 0
        self.procs: dict[str, subprocess.Popen] = {}
        self.killed: set[str] = set()  # nodes lost on purpose (kill)
        self.made: list[tuple[str, str]] = []  # ("netns" | "link", name) in creation order
        self.ray_tmp = Path(tempfile.mkdtemp(prefix=f"gv{self.suffix}-"))

    # -- addresses --------------------------------------------------------------------------------------------
    def ns(self, node: str) -> str:
        return f"gv{self.suffix}-{node}"

    def ip(self, node: str) -> str:
        return f"10.231.{self.net}.{10 + self.nodes.index(node)}"

    @property
    def host(self) -> str:
        """The bridge's address, in this machine's own namespace: every node reaches a server bound here."""
        return f"10.231.{self.net}.1"

    @property
    def address(self) -> str:
        return f"{self.ip('head')}:{HEAD_PORT}"

    def env(self) -> dict[str, str]:
        return {**os.environ, **RAY_ENV}

    # -- lifecycle --------------------------------------------------------------------------------------------
    def __enter__(self) -> NetnsCluster:
        if sys.platform != "linux" or shutil.which("ip") is None:
            raise Unavailable("needs Linux and iproute2's `ip`")
        if os.geteuid() != 0:
            raise Unavailable("network namespaces need root (CAP_NET_ADMIN)")
        if shutil.which("ray") is None:
            raise Unavailable("the `ray` command is not on PATH")
        try:
            self._network()
            self._start_ray()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _network(self) -> None:
        probe = _ip("link", "add", self.bridge, "type", "bridge", check=False)
        if probe.returncode != 0:
            raise Unavailable(f"cannot create a bridge: {probe.stderr.strip()}")
        self.made.append(("link", self.bridge))
        self.net = _free_subnet()
        _ip("addr", "add", f"{self.host}/24", "dev", self.bridge)
        _ip("link", "set", self.bridge, "up")
        for i, node in enumerate(self.nodes):
            ns, outer, inner = self.ns(node), f"gv{self.suffix}{i}o", f"gv{self.suffix}{i}i"
            made = _ip("netns", "add", ns, check=False)
            if made.returncode != 0:
                raise Unavailable(f"cannot create a network namespace: {made.stderr.strip()}")
            self.made.append(("netns", ns))
            _ip("link", "add", outer, "type", "veth", "peer", "name", inner)
            self.made.append(("link", outer))  # deleting one end deletes the pair
            _ip("link", "set", inner, "netns", ns)
            _ip("link", "set", outer, "master", self.bridge, "up")
            _ip("addr", "add", f"{self.ip(node)}/24", "dev", inner, netns=ns)
            _ip("link", "set", inner, "up", netns=ns)
            _ip("link", "set", "lo", "up", netns=ns)
            # A default route, so that Ray's "which address reaches the outside" probe (a UDP connect, nothing
            # sent) answers with the node's own address.
            _ip("route", "add", "default", "via", self.host, netns=ns)

    def _ray_start(self, node: str) -> list[str]:
        # Each node its own temp dir (short: Ray's unix sockets live there, and a socket path has 107 bytes):
        # nodes sharing one pick their socket names by looking at what is there, and two starting at once
        # picked the same raylet socket ("bind: Address already in use").
        common = [f"--temp-dir={self.ray_tmp / node}", f"--node-ip-address={self.ip(node)}", f"--object-store-memory={self.object_store_mb * 2**20}",
                  f"--resources={json.dumps({f'node_{node}': 1})}", "--block", "--disable-usage-stats"]
        if node == "head":
            # No CPUs on the head: every task and actor runs on a worker node, so losing one loses real work.
            return ["ray", "start", "--head", f"--port={HEAD_PORT}", "--num-cpus=0", "--include-dashboard=false",
                    *common]
        return ["ray", "start", f"--address={self.address}", f"--num-cpus={self.cpus}", *common]

    def _start_ray(self, timeout: float = 90) -> None:
        self.start("head")
        self.wait_nodes(1, timeout)
        for node in self.nodes[1:1 + self.up]:
            self.start(node)
        self.wait_nodes(1 + self.up, timeout)

    def join(self, node: str, timeout: float = 60) -> None:
        """Start a worker node that was not started at first, and wait until the head counts it."""
        self.start(node)
        self.wait_nodes(len(self.procs) - len(self.killed), timeout)

    def start(self, node: str) -> None:
        log = open(self.tmp / f"ray-{node}.log", "ab")
        self.procs[node] = subprocess.Popen(["ip", "netns", "exec", self.ns(node), *self._ray_start(node)],
                                            stdout=log, stderr=subprocess.STDOUT, env=self.env(),
                                            start_new_session=True)
        log.close()

    def alive_nodes(self) -> int:
        """Nodes the head counts alive (asked from inside the head's namespace, like any driver)."""
        script = ("import ray; ray.init(address=%r, log_to_driver=False); "
                  "print(sum(n['Alive'] for n in ray.nodes()))" % self.address)
        done = self.run([sys.executable, "-c", script], timeout=STEP_TIMEOUT, check=False)
        try:
            return int(done.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            return 0

    def wait_nodes(self, n: int, timeout: float, exact: bool = False) -> None:
        """Until the head counts ``n`` nodes alive (``exact``: no more, as after a :meth:`kill`)."""
        end = time.monotonic() + timeout
        while True:
            for node, proc in self.procs.items():
                if proc.poll() is not None and node not in self.killed:
                    raise RuntimeError(f"ray start on {node} exited {proc.returncode}: {self.log(node)[-2000:]}")
            alive = self.alive_nodes()
            if alive == n or (alive > n and not exact):
                return
            if time.monotonic() > end:
                raise TimeoutError(f"{n} Ray nodes not up after {timeout:.0f} s: "
                                   + " | ".join(self.log(x)[-800:] for x in self.procs))
            time.sleep(0.5)

    def log(self, node: str) -> str:
        path = self.tmp / f"ray-{node}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def run(self, cmd: Sequence[str], node: str = "head", timeout: float = 120, check: bool = True,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        """Run ``cmd`` inside ``node``'s namespace (a driver runs on the head), bounded by ``timeout``."""
        done = subprocess.run(["ip", "netns", "exec", self.ns(node), *cmd], capture_output=True, text=True,
                              timeout=timeout, env=env or self.env())
        if check and done.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr[-3000:]}")
        return done

    def popen(self, cmd: Sequence[str], node: str = "head", **kwargs) -> subprocess.Popen:
        kwargs.setdefault("env", self.env())
        return subprocess.Popen(["ip", "netns", "exec", self.ns(node), *cmd], start_new_session=True, **kwargs)

    def pids(self, node: str) -> list[int]:
        """Every process inside ``node``'s namespace: all started by this cluster."""
        done = _ip("netns", "pids", self.ns(node), check=False)
        return [int(p) for p in done.stdout.split()]

    def kill(self, node: str) -> int:
        """Lose ``node`` as a machine is lost: SIGKILL to every process in its namespace. Returns how many."""
        self.killed.add(node)
        pids = self.pids(node)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return len(pids)

    def close(self) -> None:
        """Stop every process of every node (SIGTERM, then SIGKILL after 5 s), then remove what was made."""
        live = [n for n in self.nodes if any(kind == "netns" and name == self.ns(n) for kind, name in self.made)]
        for node in live:
            for pid in self.pids(node):
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        end = time.monotonic() + 5
        while time.monotonic() < end and any(self.pids(n) for n in live):
            time.sleep(0.2)
        for node in live:
            self.kill(node)
        for proc in self.procs.values():
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        for kind, name in reversed(self.made):
            if kind == "netns":
                _ip("netns", "del", name, check=False)
            else:
                _ip("link", "del", name, check=False)
        self.made.clear()
        shutil.rmtree(self.ray_tmp, ignore_errors=True)
