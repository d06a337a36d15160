"""Malformed games tables: ``drop7 stats`` refuses each with one line naming the file and
the line (layout) or the column and (arm, seed) (values), exit 2, nothing written."""

from __future__ import annotations

import pytest
from test_stats_support import games_frame, score_like_pairs

from cli.main import main
from contracts.games_table import GAMES_COLUMNS

C, B = score_like_pairs(12, seed=3)


def _good_text() -> str:
    frame = games_frame({"cand": C, "base": B}, extra=True)
    frame["score"] = frame["score"].astype(int)
    frame["policy"] = "random"  # no commas: the edits below split lines on them
    return frame.to_csv(index=False, lineterminator="\n")


def _lines(edit):
    def apply(text: str) -> str:
        lines = text.splitlines()
        edit(lines)
        return "\n".join(lines) + "\n"
    return apply


def _cell(line: int, column: str, value: str):
    """Set ``column`` of (1-based) ``line`` to ``value``."""
    def edit(lines: list[str]) -> None:
        names = lines[0].split(",")
        fields = lines[line - 1].split(",")
        fields[names.index(column)] = value
        lines[line - 1] = ",".join(fields)
    return _lines(edit)


def _header(old: str, new: str):
    def edit(lines: list[str]) -> None:
        lines[0] = lines[0].replace(old, new, 1)
    return _lines(edit)


def _set(lines: list[str], i: int, value: str) -> None:
    lines[i] = value


#: fields of a whole row
N = len(GAMES_COLUMNS)

CASES = {
    # rows with more or fewer fields than the header (pandas shifted or padded them)
    "trailing comma on every row": (
        lambda t: "".join(f"{line},\n" if i else f"{line}\n"
                          for i, line in enumerate(t.splitlines())), f"line 2 has {N + 1} fields"),
    "one row a field short": (_lines(lambda ls: _set(ls, 6, ls[6].rsplit(",", 1)[0])),
                              f"line 7 has {N - 1} fields"),
    "one row a field long": (_lines(lambda ls: _set(ls, 9, ls[9] + ",7")), f"line 10 has {N + 1}"),
    # the header
    "a name twice": (_header("levels", "score"), "column 'score' appears twice"),
    "an empty name": (_header("levels", ""), "column 7 has no name"),
    "a padded name": (_header("moves", " moves"), "' moves' has spaces around it"),
    "an unknown name": (_header("levels", "level"), "unknown column 'level'"),
    "header only": (lambda t: t.splitlines(keepends=True)[0], "has a header but no games"),
    "empty file": (lambda t: "", "is empty"),
    "blank file": (lambda t: "\n\n", "is empty"),
    # encoding and layout
    "a BOM": (lambda t: "\ufeff" + t, "byte-order mark"),
    "a blank line": (_lines(lambda ls: ls.insert(4, "")), "line 5 is blank"),
    "broken quoting": (_cell(3, "policy", '"search'), "not valid CSV"),
    # values where whole numbers are meant
    "a fractional score": (_cell(4, "score", "1234.5"), "'score' has 1 value(s) that are not"),
    "a negative move count": (_cell(4, "moves", "-3"), "'moves' has 1 value(s)"),
    "a huge score": (_cell(4, "score", "9" * 20), "whole numbers in 0..2**53"),
    "an infinite score": (_cell(5, "score", "inf"), "'score' has 1 missing or non-numeric"),
    "a nan score": (_cell(5, "score", "nan"), "'score' has 1 missing or non-numeric"),
    "a fractional count": (_cell(5, "illegal", "0.5"), "'illegal'"),
    "a seed with a sign": (_cell(5, "seed", "+103"), "'+103'"),
    "a seed with an underscore": (_cell(5, "seed", "1_03"), "'1_03'"),
    "a padded seed": (_cell(5, "seed", " 103"), "' 103'"),
    "a seed past 64 bits": (_cell(5, "seed", str(2**64)), str(2**64)),
    # booleans spelled otherwise
    "censored yes": (_cell(6, "censored", "yes"), "'censored'"),
    "censored 2": (_cell(6, "censored", "2"), "other than 0, 1, True, False"),
    # keys
    "an (arm, seed) twice": (_lines(lambda ls: ls.append(ls[3])), "duplicate (arm, seed)"),
    "a padded arm name": (_cell(6, "arm", " cand"), "arm name(s) with spaces"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_malformed_table_is_refused_in_one_line(tmp_path, capsys, case) -> None:
    edit, fragment = CASES[case]
    path = tmp_path / "games.csv"
    path.write_text(edit(_good_text()), encoding="utf-8", newline="")
    out = tmp_path / "contrast.json"
    code = main(["stats", str(path), "--candidate", "cand", "--baseline", "base",
                 "--out", str(out), "--resamples", "200"])
    captured = capsys.readouterr()
    assert code == 2, captured.out
    assert captured.out == "" and not out.exists()
    assert captured.err.count("\n") == 1, captured.err
    assert str(path) in captured.err and fragment in captured.err, captured.err


def test_the_good_table_and_whole_floats_still_read(tmp_path, capsys) -> None:
    path = tmp_path / "games.csv"
    path.write_text(_cell(4, "score", "1234.0")(_good_text()))
    assert main(["stats", str(path), "--candidate", "cand", "--baseline", "base",
                 "--resamples", "200"]) == 0
    assert "n = 12 pairs" in capsys.readouterr().out


@pytest.mark.parametrize("make", ["missing", "directory", "not utf-8"])
def test_unreadable_files_name_the_file(tmp_path, capsys, make) -> None:
    path = tmp_path / "games.csv"
    if make == "directory":
        path.mkdir()
    elif make == "not utf-8":
        path.write_bytes(_good_text().encode().replace(b"cand", b"c\xffnd", 1))
    code = main(["stats", str(path), "--candidate", "cand", "--baseline", "base"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and str(path) in err, err


def _shard_text() -> str:
    rows = [",".join(GAMES_COLUMNS)]
    for game in range(3):
        rows.append(f"a,random,{100 + game},{game},10,5,1,0,0,0,0,0,0.0,5,90,70,,,0,0,0.1,"
                    f"{'0' * 64}")
    return "\n".join(rows) + "\n"


@pytest.mark.parametrize(("edit", "fragment"), [
    (lambda t: t.replace("\na,random,101", "\n\na,random,101"), "line 3 is blank"),
    (lambda t: t.replace(",0.1,", ",0.1,,", 1), f"line 2 has {len(GAMES_COLUMNS) + 1} fields"),
    (lambda t: t.replace("a,random,101", "a,random,1\u0660\u0661"), "seed '1\u0660\u0661'"),
    (lambda t: t.replace("a,random,101", f"a,random,{2**64}"), "0..2**64-1"),
    (lambda t: t.replace("a,random,101", 'a,"random,101'), "not valid CSV"),
    (lambda t: t.encode("utf-8").replace(b"random", b"r\xe4ndom", 1), "not UTF-8"),
])
def test_merging_a_malformed_shard_is_refused(tmp_path, capsys, edit, fragment) -> None:
    shard = tmp_path / "shard-1.csv"
    data = edit(_shard_text())
    shard.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    out = tmp_path / "games.csv"
    assert main(["run-arms", "--merge", str(shard), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(shard) in err and fragment in err, err
    assert not out.exists()
