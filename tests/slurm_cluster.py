"""A one-node Slurm cluster on this machine for the tests: munged, slurmctld and slurmd.

``one_node_cluster()`` installs Slurm and MUNGE with apt when they are missing (as root
only), writes a MUNGE key and a ``slurm.conf`` into a fresh temporary directory, starts the
three daemons in the foreground as its own children, waits until ``sinfo`` shows the node
idle and yields a :class:`Cluster`.  On the way out, whatever happened (an error, Ctrl-C,
a SIGTERM), it cancels the cluster's jobs, stops the daemons it started and removes the
directory; a daemon also gets SIGTERM if this process dies first.  It calls
``pytest.skip`` with the reason when Slurm cannot be installed or started.

The configuration is one that needs neither systemd nor cgroups: no accounting storage,
``select/cons_tres`` with cores and memory as consumables, ``proctrack/linuxproc``, CPUs
bound by ``task/affinity`` and memory enforced by ``jobacct_gather/linux`` with
``OverMemoryKill`` (polled every 5 s); slurmctld enforces time limits itself.  Finished
jobs stay in ``squeue --states=all`` for an hour (``MinJobAge``) so that a test can check
them.  The clients find the configuration through ``SLURM_CONF`` (``Cluster.env``) and an
``srun`` shim first on ``PATH`` (see ``write_config``).
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGES = ("slurm-wlm", "munge")
DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sbatch", "srun", "squeue", "sinfo", "scancel", "scontrol")
SBIN = "/usr/sbin:/sbin"
POLICY_RC = Path("/usr/sbin/policy-rc.d")
PARTITION = "test"
#: finished jobs stay visible to ``squeue --states=all`` this long (s); the tests read them
MIN_JOB_AGE = 3600


class NoClusterError(Exception):
    """Slurm cannot be installed or started here (the reason is the message)."""


@dataclass
class Cluster:
    """A running one-node cluster: its directory, configuration and client environment."""

    root: Path
    conf: Path
    partition: str
    env: dict[str, str]
    install_s: float | None  # seconds apt took, None when Slurm was already there

    @property
    def logs(self) -> list[Path]:
        """The daemons' logs (gone once the cluster is stopped)."""
        return [self.root / f"{name}.log" for name in ("slurmctld", "slurmd")]

    def run(self, *cmd: str) -> str:
        """Run a Slurm client command against this cluster; its standard output."""
        return subprocess.run(cmd, env=self.env, capture_output=True, text=True, check=True,
                              timeout=60).stdout

    def jobs(self, *states: str) -> list[dict[str, str]]:
        """``squeue`` rows (id, state, name, comment, memory, time limit, CPUs); all states
        unless some are named."""
        keys = ("id", "state", "name", "comment", "mem", "time_limit", "cpus")
        out = self.run("squeue", "--noheader", f"--states={','.join(states) or 'all'}",
                       "--format=%i|%T|%j|%k|%m|%l|%C")
        return [dict(zip(keys, line.split("|"), strict=True)) for line in out.splitlines()]


def _binaries() -> dict[str, str]:
    path = f"{os.environ.get('PATH', '')}{os.pathsep}{SBIN}"
    found = {name: shutil.which(name, path=path) for name in (*DAEMONS, *CLIENTS)}
    return {name: where for name, where in found.items() if where}


def install() -> float | None:
    """Install Slurm and MUNGE with apt unless present; the seconds it took (None if present)."""
    if len(_binaries()) == len(DAEMONS) + len(CLIENTS):
        return None
    if os.geteuid() != 0:
        raise NoClusterError("Slurm is not installed and installing it needs root "
                          f"(apt-get install {' '.join(PACKAGES)})")
    if shutil.which("apt-get") is None:
        raise NoClusterError("Slurm is not installed and there is no apt-get to install it")
    start = time.monotonic()
    # keep the packages' scripts from starting system daemons this module would not stop
    guard = not POLICY_RC.exists()
    if guard:
        POLICY_RC.write_text("#!/bin/sh\nexit 101\n")
        POLICY_RC.chmod(0o755)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    try:
        for cmd in (["apt-get", "update", "-q"],
                    ["apt-get", "install", "-y", "-q", "--no-install-recommends", *PACKAGES]):
            done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900,
                                  stdin=subprocess.DEVNULL)
            if done.returncode != 0:
                output = (done.stdout + done.stderr)[-800:]
                raise NoClusterError(f"{' '.join(cmd)} failed: {output}")
    finally:
        if guard:
            POLICY_RC.unlink(missing_ok=True)
    missing = {*DAEMONS, *CLIENTS} - set(_binaries())
    if missing:
        raise NoClusterError(f"{' '.join(PACKAGES)} installed, still missing {sorted(missing)}")
    return time.monotonic() - start


def _free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _node_line(slurmd: str) -> str:
    """This machine as slurmd sees it (``NodeName=... CPUs=... RealMemory=...``)."""
    out = subprocess.run([slurmd, "-C"], capture_output=True, text=True, timeout=60).stdout
    line = out.splitlines()[0] if out else ""
    if not line.startswith("NodeName="):
        raise NoClusterError(f"slurmd -C did not describe this node: {out!r}")
    return line


def write_config(root: Path, node: str, bins: dict[str, str]) -> Path:
    """Write the MUNGE key, slurm.conf and the srun shim into ``root``; slurm.conf's path."""
    key = root / "munge.key"
    key.write_bytes(os.urandom(128))
    key.chmod(0o400)
    for sub in ("ctld", "spool", "bin"):
        (root / sub).mkdir()
    ctld_port, d_port = _free_ports(2)
    host = node.split()[0].removeprefix("NodeName=")
    conf = root / "slurm.conf"
    conf.write_text(f"""\
ClusterName=drop7test
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={d_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={root}/munge.socket
StateSaveLocation={root}/ctld
SlurmdSpoolDir={root}/spool
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd.pid
SlurmctldLogFile={root}/slurmctld.log
SlurmdLogFile={root}/slurmd.log
PlugStackConfig={root}/plugstack.conf
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=task=5
JobAcctGatherParams=OverMemoryKill
MpiDefault=none
ReturnToService=2
MinJobAge={MIN_JOB_AGE}
{node} NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName={PARTITION} Nodes={host} Default=YES MaxTime=INFINITE State=UP
""")
    (root / "plugstack.conf").write_text("")
    # snakemake-executor-plugin-slurm-jobstep drops SLURM_CONF from the environment of the
    # srun it runs inside each job, so that srun would look for /etc/slurm/slurm.conf: this
    # shim (first on PATH) hands the test cluster's configuration back to the real srun
    shim = root / "bin" / "srun"
    shim.write_text(f'#!/bin/sh\nSLURM_CONF="{conf}" exec "{bins["srun"]}" "$@"\n')
    shim.chmod(0o755)
    return conf


def _die_with_parent() -> None:
    """In a daemon's child process: SIGTERM it when the process that started it dies."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _tail(path: Path, n: int = 1500) -> str:
    try:
        return path.read_text(errors="replace")[-n:]
    except OSError:
        return "(no log)"


def _wait(what: str, ready, daemons: dict[str, subprocess.Popen], root: Path,
          timeout: float = 60) -> None:
    """Wait for ``ready()``; NoClusterError with the logs if a daemon exits or time runs out."""
    end = time.monotonic() + timeout
    while not ready():
        dead = [name for name, p in daemons.items() if p.poll() is not None]
        if dead or time.monotonic() > end:
            files = sorted([*root.glob("*.log"), *root.glob("*.out")])
            logs = "\n".join(f"--- {p.name}:\n{_tail(p)}" for p in files)
            why = f"{dead} exited" if dead else f"no {what} after {timeout:.0f} s"
            raise NoClusterError(f"the test cluster did not start ({why}):\n{logs}")
        time.sleep(0.5)


def _stop(cluster_env: dict[str, str], daemons: dict[str, subprocess.Popen],
          bins: dict[str, str]) -> None:
    """Cancel every job, then stop the daemons in reverse start order (SIGTERM, then SIGKILL)."""
    if "slurmctld" in daemons and daemons["slurmctld"].poll() is None:
        def squeue() -> str:
            return subprocess.run([bins["squeue"], "-h", "-o", "%i"], env=cluster_env,
                                  capture_output=True, text=True, timeout=30).stdout.split()
        try:
            jobs = squeue()
            if jobs:
                subprocess.run([bins["scancel"], *jobs], env=cluster_env, timeout=30)
                end = time.monotonic() + 60
                while squeue() and time.monotonic() < end:
                    time.sleep(1)
        except (OSError, subprocess.SubprocessError):
            pass
    for proc in reversed(list(daemons.values())):
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=30)


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """Turn SIGTERM into KeyboardInterrupt meanwhile, so that clean-up runs on it too."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return

    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextmanager
def one_node_cluster() -> Iterator[Cluster]:
    """A running one-node Slurm cluster (see the module's docstring); skips if there is none."""
    try:
        install_s = install()
        if os.geteuid() != 0:
            raise NoClusterError("the test cluster's daemons run as root")
        bins = _binaries()
        node = _node_line(bins["slurmd"])
    except (NoClusterError, OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"no one-node Slurm cluster: {exc}")
    # munged wants every directory up to its socket searchable by all
    root = Path(tempfile.mkdtemp(prefix="slurm-test-"))
    root.chmod(0o755)
    daemons: dict[str, subprocess.Popen] = {}
    env = {**os.environ, "SLURM_CONF": str(root / "slurm.conf"),
           "PATH": f"{root / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
    for var in [v for v in env if v.startswith(("SLURM_", "SBATCH_", "SRUN_"))]:
        if var != "SLURM_CONF":
            del env[var]
    with _sigterm_as_interrupt():
        try:
            try:
                conf = write_config(root, node, bins)
                commands = {
                    "munged": [bins["munged"], "--foreground", f"--key-file={root}/munge.key",
                               f"--socket={root}/munge.socket", f"--pid-file={root}/munged.pid",
                               f"--log-file={root}/munged.log", f"--seed-file={root}/munged.seed"],
                    "slurmctld": [bins["slurmctld"], "-D"],
                    "slurmd": [bins["slurmd"], "-D"],
                }
                for name, cmd in commands.items():
                    with open(root / f"{name}.out", "w") as out:
                        daemons[name] = subprocess.Popen(
                            cmd, env=env, stdin=subprocess.DEVNULL, stdout=out,
                            stderr=subprocess.STDOUT, start_new_session=True,
                            preexec_fn=_die_with_parent)
                    if name == "munged":
                        _wait("MUNGE socket", (root / "munge.socket").exists, daemons, root)

                def idle() -> bool:
                    out = subprocess.run([bins["sinfo"], "-h", "-N", "-o", "%t"], env=env,
                                         capture_output=True, text=True, timeout=30).stdout
                    return out.split() == ["idle"]

                _wait("idle node in sinfo", idle, daemons, root)
            except (NoClusterError, OSError, subprocess.SubprocessError) as exc:
                pytest.skip(f"no one-node Slurm cluster: {exc}")
            yield Cluster(root=root, conf=conf, partition=PARTITION, env=env,
                          install_s=install_s)
        finally:
            _stop(env, daemons, bins)
            shutil.rmtree(root, ignore_errors=True)
