"""The contracts between the layers: the games table both sides agree on, atomic writes,
a file's SHA-256 and the one error line."""

from __future__ import annotations

import csv
import hashlib
import os
import stat

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
    GAMES_COLUMNS,
    REQUIRED_COLUMNS,
    USED_COLUMNS,
    GamesTableError,
    read_rows,
    write_rows,
)
from contracts.hashing import file_sha256
from engines.play.runner import run_shard
from engines.play.spec import parse_arm


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
