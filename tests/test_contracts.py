"""The contracts between the layers: the games table both sides agree on, atomic writes,
a file's SHA-256 and the one error line."""

from __future__ import annotations

import csv
import hashlib
import os
import re
import stat
from pathlib import Path

import pytest

from analysis.games_table import read_games
from contracts.atomic import (
    TargetExistsError,
    atomic_dir,
    atomic_file,
    atomic_write,
    debris_target,
    replace_symlink,
)
from contracts.errors import EXIT_BAD_INPUT, error_line, exit_with_error, print_error
from contracts.games_table import (
    FILTER_COLUMNS,
    GAMES_COLUMNS,
    REQUIRED_COLUMNS,
    USED_COLUMNS,
    GamesTableError,
    deciding_sha256,
    read_rows,
    write_rows,
)
from contracts.hashing import canonical_json, canonical_sha256, file_sha256
from contracts.json_file import json_text, load_json, write_json
from engines.play.policy_grammar import parse_arm
from engines.play.runner import run_shard


def test_the_runner_writes_exactly_the_header_the_statistics_read(tmp_path) -> None:
    rows = run_shard([parse_arm("c=centre-first"), parse_arm("l=lowest-column")], 3, 4,
                     progress_s=-1)
    assert all(list(row) == list(GAMES_COLUMNS) for row in rows)  # every field, in order
    path = tmp_path / "games.csv"
    write_rows(rows, path)
    with open(path, newline="") as fh:
        assert tuple(next(csv.reader(fh))) == GAMES_COLUMNS
    assert set(REQUIRED_COLUMNS) <= set(GAMES_COLUMNS) and set(USED_COLUMNS) <= set(GAMES_COLUMNS)
    table = read_games(path)
    assert list(table.columns) == list(GAMES_COLUMNS) and len(table) == 8
    assert [r["seed"] for r in read_rows(path)] == ["3", "4", "5", "6"] * 2


def test_read_rows_refuses_what_is_not_a_games_table(tmp_path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("arm,seed,score\na,1,2\n")
    missing = ", ".join(c for c in GAMES_COLUMNS if c not in ("arm", "seed", "score"))
    with pytest.raises(GamesTableError, match=f"bad.csv: line 1: no column {missing}: a games "
                                              "table written before these columns; play"):
        read_rows(bad)
    old = tmp_path / "old.csv"  # a table written before the per-game search counts
    old.write_text(",".join(c for c in GAMES_COLUMNS if c not in ("nodes", "leaves")) + "\n")
    with pytest.raises(GamesTableError, match="old.csv: line 1: no column nodes, leaves: "):
        read_rows(old)
    swapped = tmp_path / "swapped.csv"
    swapped.write_text(",".join(reversed(GAMES_COLUMNS)) + "\n")
    with pytest.raises(GamesTableError, match="swapped.csv: line 1: columns out of order"):
        read_rows(swapped)
    unknown = tmp_path / "unknown.csv"
    unknown.write_text(",".join(GAMES_COLUMNS) + ",extra\n")
    with pytest.raises(GamesTableError, match="unknown.csv: line 1: unknown column 'extra'"):
        read_rows(unknown)
    short = tmp_path / "short.csv"
    short.write_text(",".join(GAMES_COLUMNS) + "\na,p,1\n")
    fields = len(GAMES_COLUMNS)
    with pytest.raises(GamesTableError, match=f"line 2 has 3 fields, the header has {fields}"):
        read_rows(short)


def test_a_table_written_before_the_filter_columns_reads_with_them_empty(tmp_path) -> None:
    """Its arms had no root filter: read with the two counts empty, the same deciding hash."""
    rows = [dict(zip(GAMES_COLUMNS, ("a", "p", str(3 + i), str(i), "120", "7", "1", "0", "0",
                                     "4", "2", "3", "1.5", "7", "90", "70", "", "", "0", "0",
                                     "0.1", "ab" * 32), strict=True)) for i in range(2)]
    old = tmp_path / "old.csv"
    kept = [c for c in GAMES_COLUMNS if c not in FILTER_COLUMNS]
    old.write_text("\n".join([",".join(kept)] + [",".join(r[c] for c in kept) for r in rows])
                   + "\n")
    got = read_rows(old)
    assert got == rows and deciding_sha256(got) == deciding_sha256(rows)
    assert all(list(r) == list(GAMES_COLUMNS) for r in got)


def test_atomic_write_leaves_the_old_file_on_error_and_no_temporary(tmp_path) -> None:
    path = tmp_path / "sub" / "out.txt"
    assert atomic_write(path, "one\n") == path and path.read_text() == "one\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~_umask()  # as a plain open gives
    with pytest.raises(RuntimeError), atomic_file(path, "w") as fh:
        fh.write("half")
        raise RuntimeError("disk on fire")
    assert path.read_text() == "one\n"
    assert [p.name for p in path.parent.iterdir()] == ["out.txt"]


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_atomic_dir_replaces_only_when_asked_and_never_leaves_half(tmp_path) -> None:
    final = tmp_path / "weights"
    with atomic_dir(final) as tmp:
        (tmp / "a").write_text("1")
    assert (final / "a").read_text() == "1"
    with pytest.raises(TargetExistsError), atomic_dir(final) as tmp:
        (tmp / "a").write_text("2")
    with pytest.raises(RuntimeError), atomic_dir(final, replace=True) as tmp:
        (tmp / "a").write_text("3")
        raise RuntimeError("stopped")
    assert (final / "a").read_text() == "1"
    with atomic_dir(final, replace=True) as tmp:
        (tmp / "b").write_text("4")
    assert sorted(p.name for p in final.iterdir()) == ["b"]
    assert [p.name for p in tmp_path.iterdir()] == ["weights"]


def test_replace_symlink_points_the_link_at_the_new_target(tmp_path) -> None:
    link = tmp_path / "latest"
    replace_symlink(link, "resume-1")
    replace_symlink(link, "resume-2")
    assert os.readlink(link) == "resume-2"
    assert [p.name for p in tmp_path.iterdir()] == ["latest"]


def test_every_temporary_the_writers_make_is_known_as_debris(tmp_path, monkeypatch) -> None:
    """The names a killed write would leave (recorded from the real writers' renames) are
    recognised as debris of their target; the targets themselves are not."""
    renamed: list[str] = []
    real_replace = os.replace

    def record(src, dst):
        renamed.extend((os.path.basename(src), os.path.basename(dst)))
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", record)
    for _ in range(2):  # the second replaces: build folder, then the old copy swapped out
        with atomic_dir(tmp_path / "step-300", replace=True) as tmp:
            (tmp / "a").write_text("1")
    replace_symlink(tmp_path / "latest", "resume-300")
    temporaries = {name for name in renamed if name not in ("step-300", "latest")}
    assert len(temporaries) == 3, renamed  # the build folder, the old copy, the new link
    assert {debris_target(name) for name in temporaries} == {"step-300", "latest"}
    assert debris_target("step-300") is None and debris_target("latest") is None


def test_file_sha256_is_sha256sum(tmp_path) -> None:
    path = tmp_path / "x.bin"
    data = os.urandom(3 << 20)
    path.write_bytes(data)
    assert file_sha256(path) == hashlib.sha256(data).hexdigest()


def test_the_error_line(capsys) -> None:
    assert error_line("bad value", "drop7 stats") == "drop7 stats: error: bad value"
    assert (error_line("must be positive", "drop7 train", file="c.yaml", key="moves")
            == "drop7 train: error: c.yaml: moves: must be positive")
    assert error_line(ValueError("first\nsecond")) == "error: first"
    assert error_line(OSError()) == "error: OSError"
    assert print_error("x", "prog") == EXIT_BAD_INPUT == 2
    assert capsys.readouterr().err == "prog: error: x\n"
    with pytest.raises(SystemExit) as stop:
        exit_with_error("y")
    assert stop.value.code == 2 and capsys.readouterr().err == "error: y\n"


def test_canonical_json_and_its_hash_are_pinned() -> None:
    """Sorted keys, no spaces, non-JSON values as their str: the records' ids, the protocol
    hash, the profile hash and the trainer's config hash are all taken of this text."""
    value = {"b": [1, 2.5, None], "a": {"z": True, "y": "é"}, "p": Path("x/y")}
    assert canonical_json(value) == '{"a":{"y":"\\u00e9","z":true},"b":[1,2.5,null],"p":"x/y"}'
    assert canonical_sha256(value) == hashlib.sha256(canonical_json(value).encode()).hexdigest()
    assert canonical_sha256(["claim", 3]) == (
        "66e445b8308450bf3bbe5dc2360541de20102390a092ac50ecad7894a1054457")


def test_json_text_is_the_house_form_and_write_json_writes_it(tmp_path) -> None:
    data = {"b": [1.0, float("nan")], "a": (float("inf"), 2)}
    assert json_text(data) == ('{\n  "b": [\n    1.0,\n    null\n  ],\n'
                               '  "a": [\n    null,\n    2\n  ]\n}\n')
    assert json_text(data, indent=None, sort_keys=True) == '{"a": [null, 2], "b": [1.0, null]}\n'
    path = write_json(tmp_path / "x.json", data, sort_keys=True)
    assert path.read_text() == json_text(data, sort_keys=True)
    assert load_json(path) == {"a": [None, 2], "b": [1.0, None]}


#: how canonical JSON is spelt, and a JSON text written to a file, outside the contracts
_CANONICAL = re.compile(r"sort_keys=True,\s*separators=")
_WRITTEN = re.compile(r"(atomic_write|write_text|write_public)\([^\n]*json\.dumps\(")


def test_canonical_json_and_json_files_are_written_in_one_place() -> None:
    """Every canonical hash goes through contracts.hashing and every JSON file through
    contracts.json_file (no copy of either elsewhere)."""
    root = Path(__file__).resolve().parent.parent
    found = []
    for package in ("engines", "protocol", "analysis", "workflow"):
        for path in sorted((root / package).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            found += [f"{path.relative_to(root)}: {m.group(0)}"
                      for m in (*_CANONICAL.finditer(text), *_WRITTEN.finditer(text))]
    assert found == []
