"""The machine record of a claim's run (``drop7-machine-v1``): what this machine is, read
from the platform and ``/proc`` (null where the harness does not read it)."""

from __future__ import annotations

import os
import platform
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from protocol.records.check import check_record
from protocol.records.ids import FORMATS, SCHEMA_URI, compact, sha8


def machine_record(captured_utc: str) -> dict[str, Any]:
    """The ``drop7-machine-v1`` of this machine (null where it is not read)."""
    uname = platform.uname()
    cpus = os.cpu_count() or 1
    facts = {
        "operatingSystem": {"system": uname.system, "release": uname.release,
                            "version": uname.version, "architecture": uname.machine,
                            "distribution": _os_release(), "container": None},
        "cpu": {"model": _cpu_model(), "physicalCores": None, "logicalCpus": cpus,
                "affinityLogicalCpus": len(os.sched_getaffinity(0))
                if hasattr(os, "sched_getaffinity") else None,
                "numaNodes": None, "governor": None},
        "memory": {"totalBytes": _meminfo("MemTotal"), "availableBytes": _meminfo("MemAvailable"),
                   "swapTotalBytes": _meminfo("SwapTotal"),
                   "pageSizeBytes": os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else None},
        "limits": {"cgroupVersion": None, "memoryMaxBytes": None, "cpuQuota": None,
                   "cpuAffinity": None},
        "gpu": {"devices": [], "rocmVersion": None, "hipVersion": None,
                "sharedSystemMemory": None, "detectionNotes": "no GPU is used or probed"},
        "toolchain": {"python": platform.python_version()}, "profilers": {},
        "notes": ["null: not read by the harness"],
    }
    stable = {k: v for k, v in facts.items() if k != "memory"}
    record = {"$schema": SCHEMA_URI.format(kind="machine"), "format": FORMATS["machine"],
              "machineProfileId": f"MACH-{compact(captured_utc)}-{sha8(stable)}",
              "capturedAt": captured_utc, **facts}
    check_record(record, "machine", "machine record")
    return record


def _search(path: str, pattern: str) -> re.Match[str] | None:
    """The first line of a system file matching ``pattern`` (None: unreadable or absent)."""
    try:
        text = Path(path).read_text()
    except OSError:
        return None
    return re.search(pattern, text, re.M)


def _os_release() -> str | None:
    found = _search("/etc/os-release", r'^PRETTY_NAME="?([^"\n]*)"?$')
    return found[1] if found else None


def _cpu_model() -> str | None:
    found = _search("/proc/cpuinfo", r"^model name\s*:\s*(.*)$")
    return found[1].strip() if found else None


def _meminfo(key: str) -> int | None:
    found = _search("/proc/meminfo", rf"^{key}:\s*(\d+) kB$")
    return int(found[1]) * 1024 if found else None


_AT_RUN = ("captured at the run, by the job that closed the block (the run that wrote the "
           "per-game rows)")


def machine_at(closed: Mapping[str, Any] | None, machine: Mapping[str, Any] | None,
                now_utc: str) -> dict[str, Any]:
    """The machine record: the one the closing job captured, else ``machine`` or this machine
    now, saying that it was not captured at the run."""
    if closed and closed.get("machine"):
        record = dict(closed["machine"])
        record["notes"] = [*record.get("notes", []), _AT_RUN]
        return record
    record = dict(machine) if machine is not None else machine_record(now_utc)
    said = (f"captured at {record['capturedAt']}, when the records were written, not at the "
            "run: the run's machine was not recorded")
    if said not in record.get("notes", []):
        record["notes"] = [*record.get("notes", []), said]
    return record
