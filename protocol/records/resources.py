"""What a run used and where its code came from, as the run record says them.

:func:`run_resources` sums the CPU, wall and jobs of the blocks a run read
from their ledger entries and job records; :func:`source_notes` says what
the provenance knows of the commit and its diff.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from protocol.paths import screen_label
from protocol.records.ids import seconds_between


def run_resources(entries: Mapping[int, Mapping[str, Any]],
                  jobs: Mapping[str, Mapping[str, Any]] | None, cores: int | None,
                  ) -> tuple[dict[str, Any], str]:
    """``resourceObserved`` of the run that first read ``entries``' blocks, and what it says.

    Wall is the first reading's span (opening to completion); CPU and peak memory
    the blocks' jobs (benchmark names under ``screen-<block>/``: game jobs, and a
    ranking panel's jobs under ``screen-<block>/panel/``) whose benchmark files
    were written in that span.  Null, with the reason, when the
    benchmark files are not available, a job was rewritten after the span (a
    replay), or the CPU exceeds the cores times the span.
    """
    started = min(e["opened_utc"] for e in entries.values())
    ended = max(e.get("completed_utc") or started for e in entries.values())
    wall = seconds_between(started, ended)
    labels = {screen_label(b) for b in entries}
    out = {"wallSeconds": wall, "cpuSeconds": None, "peakHostBytes": None, "peakGpuBytes": None}
    note = (f"wallSeconds: the first reading's span, from the opening ({started}) to the "
            f"completion ({ended}) of the block in the ledger; ")
    mine = {k: j for k, j in (jobs or {}).items() if k.split("/")[0] in labels}
    late = sorted(k for k, j in mine.items()
                  if not started <= str(j.get("written_utc")) <= ended)
    if jobs is None:
        return out, note + ("CPU and peak memory unknown: the run's benchmark files were not "
                            "available to these records")
    if not mine or late:
        return out, note + ("CPU and peak memory unknown: " + (
            f"the benchmark files of {jobs_named(late)} of the block were written outside "
            "its first reading's span (a later run replaced them)" if late else
            "no benchmark file of the block's jobs"))
    cpu = round(sum(float(j.get("cpu_s") or 0) for j in mine.values()), 3)
    if cores is not None and cpu > cores * wall:
        return out, note + (f"CPU unknown: the benchmark files of {jobs_named(mine)} sum "
                            f"{cpu} s, more "
                            f"than {cores} cores times the span; peak memory unknown")
    peak = max(float(j.get("max_rss_mb") or 0) for j in mine.values())
    out.update(cpuSeconds=cpu, peakHostBytes=int(peak * 2**20) if peak else None)
    return out, note + (f"cpuSeconds and peakHostBytes: the sum and the largest of the "
                        f"benchmark files of the block's {jobs_named(mine)}, all written in "
                        "the span (the claim's training, gates and statistics are not counted)")


def jobs_named(keys: Iterable[str]) -> str:
    """``keys`` (benchmark names ``screen-<block>/...``) counted by what they are: ``N game
    jobs`` (an arm's shards) and ``M panel jobs`` (a ranking panel's roots and rankers)."""
    keys = list(keys)
    panel = sum(1 for k in keys if k.split("/")[1:2] == ["panel"])
    parts = [f"{n} {kind} job{'s' if n != 1 else ''}"
             for n, kind in ((len(keys) - panel, "game"), (panel, "panel")) if n]
    return " and ".join(parts) or "0 jobs"


def source_notes(provenance: Mapping[str, Any]) -> list[str]:
    """What the run's source state cannot say (the last note: no source archive)."""
    dirty, diff = provenance.get("dirty"), provenance.get("diff_sha256")
    notes = ([] if not dirty or diff else
             ["the tree was dirty and its diff was not recorded: diffSha256 unknown"])
    return [*notes, "sourceArchiveSha256: no source archive is made (null)"]
