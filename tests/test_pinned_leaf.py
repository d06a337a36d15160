"""A leaf from a pinned file: the vector and table formats, the leaf kinds, the search, and the
claim key ``leaf: {file, sha256}`` refused before any job when the file is not the pinned one."""

from __future__ import annotations

import hashlib
import json
import re

import numpy as np
import pytest
from claims_support import REPO, fair_depth_claim, write_claim

from engines.drop7.board import rows_to_cols
from engines.leaves.kinds import N_TERMS, LeafError, LeafSpec, parse_leaf
from engines.leaves.linear import FAIR_WEIGHTS
from engines.ntuple.layouts import FILL_RULES, FILL_SEP
from engines.pinned_leaf import PinnedError, check_pinned, read_vector
from engines.play.arm_specs import PolicyError
from engines.play.games import play_game
from engines.play.policy import load_policy
from engines.play.policy_grammar import canonical_policy
from engines.search.leaf import leaf_base, load_leaf
from engines.weights_files import array_chunks, save_weights, unpack_weights
from protocol.checks import before_any_job
from protocol.plan import load_plan
from protocol.records.experiment import experiment_record
from protocol.records.ids import protocol_sha256
from protocol.schema import DeclarationError

BOARD = rows_to_cols(["0000000", "0000000", "0000000", "0000000", "0030000", "0124000",
                    "8914725"])


def sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def npy(path, values) -> str:
    np.save(path, np.asarray(values))
    return sha(path)


def test_a_vector_reads_from_npy_and_json_with_an_optional_intercept(tmp_path) -> None:
    npy(tmp_path / "w.npy", FAIR_WEIGHTS)
    v = read_vector(tmp_path / "w.npy")
    assert v.shape == (N_TERMS + 1,) and np.array_equal(v[:N_TERMS], FAIR_WEIGHTS) and v[-1] == 0
    (tmp_path / "w.json").write_text(json.dumps([*map(float, FAIR_WEIGHTS), 125.5]))
    v = read_vector(tmp_path / "w.json")
    assert np.array_equal(v[:N_TERMS], FAIR_WEIGHTS) and v[-1] == 125.5


@pytest.mark.parametrize(("name", "write", "message"), [
    ("short.npy", lambda p: np.save(p, np.zeros(17)), r"shape \[17\]"),
    ("long.json", lambda p: p.write_text(json.dumps([0.0] * 20)), r"shape \[20\]"),
    ("f32.npy", lambda p: np.save(p, np.zeros(18, dtype=np.float32)), "float64, got float32"),
    ("grid.npy", lambda p: np.save(p, np.zeros((2, 9))), r"shape \[2, 9\]"),
    ("nan.json", lambda p: p.write_text("[NaN" + ", 0" * 17 + "]"), "non-finite"),
    ("text.json", lambda p: p.write_text('{"w": 1}'), "not a JSON list of numbers"),
    ("bools.json", lambda p: p.write_text(json.dumps([True] * 18)), "not a JSON list"),
    ("w.txt", lambda p: p.write_text("1 2 3"), "a .npy or .json file"),
    ("junk.npy", lambda p: p.write_bytes(b"not numpy"), "unreadable"),
    ("huge-int.json", lambda p: p.write_text(json.dumps([10**400] + [0] * 17)),
     "401 digits.*too large for a float"),
    ("overflow.json", lambda p: p.write_text(json.dumps([1e308] + [0] * 17)),
     "leaf values can reach past float64's range"),
    ("big.npy", lambda p: np.save(p, np.array([0.0] * 16 + [1e299, 0.0])),
     "leaf values can reach 2.4e\\+302 points, over the bound 1e\\+300"),
    ("intercept.json", lambda p: p.write_text(json.dumps([0] * 18 + [1e301])), "over the bound"),
])
def test_a_malformed_vector_is_refused_in_one_line(tmp_path, name, write, message) -> None:
    path = tmp_path / name
    write(path)
    with pytest.raises(PinnedError, match=message) as err:
        read_vector(path)
    assert "\n" not in str(err.value) and str(path) in str(err.value)


def test_the_leaf_text_carries_the_hash() -> None:
    text = f"linear-file:{'a' * 64}:weights/w.npy"
    assert parse_leaf(text) == LeafSpec("linear-file", "weights/w.npy", "a" * 64)
    assert parse_leaf(text).format() == text
    policy = f"search:leaf=ntuple-file:{'b' * 64}:t/A,d=2,s=5"
    assert canonical_policy(policy) == policy
    for bad in ("linear-file:weights/w.npy", f"linear-file:{'A' * 64}:w.npy",
                f"ntuple-file:{'a' * 64}:", f"linear-file:{'a' * 63}:w.npy"):
        with pytest.raises(LeafError, match="needs a SHA-256 and a path"):
            parse_leaf(bad)


def test_the_fair_weights_from_a_file_play_as_the_fair_leaf(tmp_path) -> None:
    digest = npy(tmp_path / "fair.npy", FAIR_WEIGHTS)
    pinned = load_policy(f"search:leaf=linear-file:{digest}:{tmp_path / 'fair.npy'},d=2,s=3")
    fair = load_policy("search:leaf=linear,d=2,s=3")
    for seed in (1, 2):
        a, b = play_game(pinned, seed), play_game(fair, seed)
        assert a["trajectory"] == b["trajectory"] and a["score"] == b["score"]


def test_the_intercept_adds_to_every_leaf_value(tmp_path) -> None:
    digest = npy(tmp_path / "w.npy", [*FAIR_WEIGHTS, -4321.25])
    with_icpt = load_leaf(f"linear-file:{digest}:{tmp_path / 'w.npy'}")
    fair = load_leaf("linear")
    for mr in (1, 3, 5):
        a = leaf_base(with_icpt.kind, BOARD, mr, with_icpt.weights, with_icpt.tables,
                      with_icpt.spec)
        b = leaf_base(fair.kind, BOARD, mr, fair.weights, fair.tables, fair.spec)
        assert a == b + -4321.25


def test_a_file_that_is_not_its_pin_does_not_load(tmp_path) -> None:
    npy(tmp_path / "w.npy", FAIR_WEIGHTS)
    with pytest.raises(PolicyError, match="is not the pinned"):
        load_policy(f"direct:leaf=linear-file:{'0' * 64}:{tmp_path / 'w.npy'}")
    with pytest.raises(PolicyError, match="missing"):
        load_policy(f"direct:leaf=linear-file:{'0' * 64}:{tmp_path / 'gone.npy'}")


def _tables_dir(tmp_path, layout: str = "T1", seed: int = 4):
    from engines.ntuple.layouts import get_layout

    lay = get_layout(layout)
    values = np.random.default_rng(seed).random(lay.entries, dtype=np.float32)
    packed = tmp_path / "ckpt"
    manifest = save_weights(packed, (lay.entries,), np.float32, array_chunks(values),
                            {"kind": "ntuple", "layout": layout, "entries": lay.entries})
    plain = tmp_path / "tables"
    plain.mkdir()
    unpack_weights(packed, plain)
    return plain, manifest["sha256"], values


def test_weights_whose_leaves_stay_in_bounds_are_taken(tmp_path) -> None:
    """The bound is sound, not tight: any weight vector with ``leaf_bound`` at the limit is
    taken, and the limit keeps every sum a chance node makes finite."""
    from engines.leaves.linear_weights import LEAF_LIMIT, TERM_BOUNDS, leaf_bound
    from engines.search.limits import MAX_REVEALS, MAX_STRATA

    assert np.finfo(np.float64).max > MAX_STRATA * MAX_REVEALS * LEAF_LIMIT * 2
    (tmp_path / "w.json").write_text(json.dumps([1e290] * 18 + [-1e290]))
    assert read_vector(tmp_path / "w.json")[0] == 1e290
    assert leaf_bound(np.ones(N_TERMS)) == TERM_BOUNDS.sum()


def test_the_term_bounds_hold_on_the_fullest_boards() -> None:
    """Every term of the shipped positions and of boards full of each cell kind is within
    :data:`~engines.leaves.linear_weights.TERM_BOUNDS` (which a pinned vector's check reads)."""
    from engines.leaves.linear import linear_terms
    from engines.leaves.linear_weights import TERM_BOUNDS
    from engines.search.positions import load_positions

    boards = [(cols, mr, disc) for cols, disc, mr in load_positions()]
    for row in ("1111111", "2222222", "8888888", "9999999", "7777777", "1212121", "2929292"):
        for mr in (1, 2, 5):
            for disc in range(1, 8):
                boards.append((rows_to_cols([row] * 7), mr, disc))
    boards.append((rows_to_cols(["0000000"] * 7), 1, 1))
    out = np.zeros(N_TERMS)
    for cols, mr, disc in boards:
        linear_terms(np.asarray(cols, dtype=np.int64), mr, disc, out)
        assert np.all(out >= 0) and np.all(out <= TERM_BOUNDS), (cols, out)


def test_ntuple_tables_in_a_weights_directory_load_by_their_stream_hash(tmp_path,
                                                                      monkeypatch) -> None:
    from engines.ntuple.layouts import LAYOUTS, TEST_LAYOUTS

    monkeypatch.setitem(LAYOUTS, "T1", TEST_LAYOUTS["T1"])  # a claim pins A-E only (below)
    directory, digest, values = _tables_dir(tmp_path)
    facts = check_pinned(directory, digest)
    assert (facts.kind, facts.entries) == ("ntuple-file", values.shape[0])
    leaf = load_leaf(f"ntuple-file:{digest}:{directory}")
    assert np.array_equal(leaf.tables, values)
    with pytest.raises(PinnedError, match="the recorded SHA-256"):
        check_pinned(directory, "c" * 64)
    # the manifest says the pin, the array does not hold it: hashed before any job
    arr = np.load(directory / "tables.npy", mmap_mode="r+")
    arr[7] += 1
    arr.flush()
    del arr
    with pytest.raises(PinnedError, match="SHA-256 does not match"):
        check_pinned(directory, digest)
    with pytest.raises(ValueError, match="holds a ntuple-file leaf, not linear-file"):
        load_leaf(f"linear-file:{digest}:{directory}")


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_tables_holding_a_non_finite_entry_are_refused(tmp_path, bad) -> None:
    from engines.ntuple.layouts import get_layout
    from engines.pinned_leaf import load_pinned

    lay = get_layout("T1")
    values = np.zeros(lay.entries, dtype=np.float32)
    values[lay.entries - 3] = bad
    manifest = save_weights(tmp_path / "t", (lay.entries,), np.float32, array_chunks(values),
                            {"kind": "ntuple", "layout": "T1", "entries": lay.entries})
    with pytest.raises(PinnedError, match=f"non-finite table entry {lay.entries - 3} "):
        check_pinned(tmp_path / "t", manifest["sha256"])
    with pytest.raises(PolicyError, match="non-finite table entry"):
        load_policy(f"direct:leaf=ntuple-file:{manifest['sha256']}:{tmp_path / 't'}")
    assert load_pinned(tmp_path / "t", manifest["sha256"], verify=False)[2] is not None


def test_a_test_layout_is_not_a_pinned_leaf_of_a_claim(tmp_path) -> None:
    for layout in ("T1", "null"):
        directory, digest, _ = _tables_dir(tmp_path / layout, layout)
        rules = ", ".join(re.escape(FILL_SEP + r) for r in FILL_RULES)
        with pytest.raises(PinnedError, match=f"layout {layout} is a test layout, not one a "
                                              "claim may pin \\(A, B, C, D, E, or one of them "
                                              f"with a fill rule: {rules}\\)"):
            check_pinned(directory, digest)
        load_leaf(f"ntuple-file:{digest}:{directory}")  # the engine's own tests may


def test_a_device_or_fifo_is_refused_before_it_is_read(tmp_path) -> None:
    import os

    os.mkfifo(tmp_path / "fifo.npy")
    os.symlink("/dev/zero", tmp_path / "zero.npy")
    for name in ("fifo.npy", "zero.npy"):
        with pytest.raises(PinnedError, match=f"{name}: not a regular file or a weights "
                                              "directory"):
            check_pinned(tmp_path / name, "0" * 64)
    # inside a weights directory: the manifest and the array
    directory, digest, _ = _tables_dir(tmp_path)
    (directory / "tables.npy").unlink()
    os.mkfifo(directory / "tables.npy")
    with pytest.raises(PinnedError, match="tables.npy: not a regular file"):
        check_pinned(directory, digest)
    (directory / "manifest.json").unlink()
    os.mkfifo(directory / "manifest.json")
    with pytest.raises(PinnedError, match="manifest.json: not a regular file"):
        check_pinned(directory, digest)


def test_a_truncated_compressed_vector_is_reported_truncated(tmp_path) -> None:
    from engines.pinned_leaf import load_pinned

    manifest = save_weights(tmp_path / "lin", (N_TERMS,), np.float64, array_chunks(FAIR_WEIGHTS),
                            {"kind": "linear", "layout": "linear", "entries": N_TERMS})
    packed = tmp_path / "lin" / "tables.npy.zst"
    data = packed.read_bytes()
    assert load_pinned(tmp_path / "lin", manifest["sha256"])[0] == "linear-file"
    for cut in (len(data) - 4, len(data) // 2, 12):
        packed.write_bytes(data[:cut])
        with pytest.raises(PinnedError, match="truncated|damaged") as err:
            check_pinned(tmp_path / "lin", manifest["sha256"])
        assert "not the .npy stream" not in str(err.value)


# ---- the claim key ----------------------------------------------------------------------------

def _claim(tmp_path, leaf: dict, comparator=None) -> tuple:
    doc = fair_depth_claim(block=90)
    doc["arms"]["fair-d2s7"] = {"play": "search", "depth": 2, "strata": 7, "leaf": leaf}
    own = tmp_path / "mine"
    own.mkdir(exist_ok=True)
    path = write_claim(own, doc)
    return own, path


def _plan(tmp_path, own):
    return load_plan(REPO, {"profile": "smoke", "claims_dir": str(own)})


def test_a_claim_reads_a_pinned_file_by_path_and_hash(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w").mkdir(parents=True)
    digest = npy(tmp_path / "w" / "cma.npy", [*FAIR_WEIGHTS, 10.0])
    own, path = _claim(tmp_path, {"file": "./w//cma.npy", "sha256": digest})
    plan = _plan(tmp_path, own)
    p = plan.claims["fair-depth-prefix"]
    arm = p.arms["fair-d2s7"]
    assert arm.policy == f"search:leaf=linear-file:{digest}:w/cma.npy,d=1,s=3"
    assert arm.spec.leaf.kind == "linear-file" and arm.pinned.key == "arms.fair-d2s7.leaf"
    described = p.describe()
    assert described["pinned"] == {"arms.fair-d2s7.leaf": {
        "file": "w/cma.npy", "sha256": digest, "kind": "linear-file"}}
    assert described["arms"]["fair-d2s7"]["pinned"]["sha256"] == digest
    before_any_job(plan)
    # the records: the comparator arm's policy carries the hash, its manifest is the file
    record = experiment_record(described, "2026-12-03T00:00:00Z", [])
    assert record["comparator"] == {"name": "fair-d2s7", "entryPoint": arm.policy,
                                    "manifestRef": "w/cma.npy"}
    assert record["candidate"]["manifestRef"] is None
    # the hash enters the protocol hash: another pin is another experiment
    other = npy(tmp_path / "w" / "cma.npy", [*FAIR_WEIGHTS, 11.0])
    _claim(tmp_path, {"file": "w/cma.npy", "sha256": other})
    assert protocol_sha256(_plan(tmp_path, own).claims["fair-depth-prefix"].describe()) != \
        protocol_sha256(described)


def test_a_claim_without_a_pinned_file_describes_as_before(tmp_path) -> None:
    plan = load_plan(REPO, {"profile": "smoke"})
    pinning = {"reveal-construction-leaf", "treestrap-linear-leaf-refit"}  # the shipped pins
    assert all(plan.claims[name].pinned for name in pinning)
    for p in (p for name, p in plan.claims.items() if name not in pinning):
        assert "pinned" not in p.describe() and p.pinned == {}
        assert all("pinned" not in a for a in p.describe()["arms"].values())


@pytest.mark.parametrize(("write", "pin", "where", "message"), [
    (lambda p: np.save(p, FAIR_WEIGHTS), "0" * 64, "sha256", "is not the pinned"),
    (lambda p: np.save(p, FAIR_WEIGHTS[:12]), None, "file", r"shape \[12\]"),
    (lambda p: np.save(p, FAIR_WEIGHTS.astype(np.float32)), None, "file", "float32"),
])
def test_a_wrong_pinned_file_is_refused_before_any_job(tmp_path, monkeypatch, write, pin, where,
                                                       message) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "w.npy")
    own, path = _claim(tmp_path, {"file": "w.npy", "sha256": pin or sha(tmp_path / "w.npy")})
    plan = _plan(tmp_path, own)  # the plan reads kinds only: the hash waits for the check
    with pytest.raises(DeclarationError, match=message) as err:
        before_any_job(plan)
    line = str(err.value)
    assert line.startswith(f"{path}: key arms.fair-d2s7.leaf.{where}: w.npy")
    assert "\n" not in line


def test_a_missing_or_unknown_pinned_file_is_refused_at_the_plan(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    own, path = _claim(tmp_path, {"file": "nowhere.npy", "sha256": "a" * 64})
    with pytest.raises(DeclarationError, match=f"^{path}: key arms.fair-d2s7.leaf.file: "
                                               "nowhere.npy: missing$"):
        _plan(tmp_path, own)
    (tmp_path / "w.csv").write_text("1,2")
    own, path = _claim(tmp_path, {"file": "w.csv", "sha256": "a" * 64})
    with pytest.raises(DeclarationError, match="key arms.fair-d2s7.leaf.file: w.csv: a "
                                               "pinned leaf is a linear vector"):
        _plan(tmp_path, own)


def test_a_claim_pinning_a_fifo_or_a_test_layout_is_refused_in_one_line(tmp_path,
                                                                        monkeypatch) -> None:
    import os

    monkeypatch.chdir(tmp_path)
    os.mkfifo(tmp_path / "w.npy")
    own, path = _claim(tmp_path, {"file": "w.npy", "sha256": "a" * 64})
    with pytest.raises(DeclarationError, match=f"^{path}: key arms.fair-d2s7.leaf.file: w.npy: "
                                               "not a regular file or a weights directory"):
        _plan(tmp_path, own)
    directory, digest, _ = _tables_dir(tmp_path)
    own, path = _claim(tmp_path, {"file": "tables", "sha256": digest})
    plan = _plan(tmp_path, own)
    with pytest.raises(DeclarationError, match=f"^{path}: key arms.fair-d2s7.leaf.file: "
                                               "tables/manifest.json: layout T1 is a test"):
        before_any_job(plan)


def test_the_schema_refuses_a_pin_without_its_hash(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    own, path = _claim(tmp_path, {"file": "w.npy"})
    with pytest.raises(DeclarationError, match=f"^{path}: missing key arms.fair-d2s7.leaf.sha256$"):
        _plan(tmp_path, own)


def test_a_dry_run_refuses_a_wrong_pin_in_one_line(tmp_path) -> None:
    from workflow_support import snakemake

    work = tmp_path / "run"
    (work / "w").mkdir(parents=True)
    np.save(work / "w" / "cma.npy", FAIR_WEIGHTS)
    own, path = _claim(tmp_path, {"file": "w/cma.npy", "sha256": "0" * 64})
    result = snakemake(work, "-n", "--config", "profile=smoke", f"claims_dir={own}",
                       timeout=300)
    assert result.returncode == 2, result.stderr[-2000:]
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and errors[0].startswith(
        f"error: {path}: key arms.fair-d2s7.leaf.sha256: w/cma.npy: SHA-256 ")
    assert not (work / "results").exists() and "Traceback" not in result.stderr


def test_a_dry_run_refuses_a_fifo_in_one_line_without_waiting_on_it(tmp_path) -> None:
    import os

    from workflow_support import snakemake

    work = tmp_path / "run"
    work.mkdir()
    os.mkfifo(work / "cma.npy")  # no writer: opening it would wait for ever
    own, path = _claim(tmp_path, {"file": "cma.npy", "sha256": "0" * 64})
    result = snakemake(work, "-n", "--config", "profile=smoke", f"claims_dir={own}",
                       timeout=300)
    assert result.returncode == 2, result.stderr[-2000:]
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert errors == [f"error: {path}: key arms.fair-d2s7.leaf.file: cma.npy: not a regular "
                      "file or a weights directory (a device, FIFO or socket is never read)"]
    assert not (work / "results").exists() and "Traceback" not in result.stderr


def test_a_pinned_file_beside_a_pinned_artefact_names_the_artefact_key(tmp_path,
                                                                        monkeypatch) -> None:
    from claims_support import claims_copy

    monkeypatch.chdir(tmp_path)
    digest = npy(tmp_path / "fair.npy", FAIR_WEIGHTS)

    def edit(d):
        d["arms"] = {"pinned-d3s7": {"play": "search", "depth": 3, "strata": 7,
                                     "leaf": {"file": "fair.npy", "sha256": digest}},
                     **d["arms"]}
        d["arms"]["tables-d3s7"]["leaf"]["sha256"] = "b" * 64

    claims = claims_copy(tmp_path / "claims", edit, claim="fourth-ply")
    plan = load_plan(REPO, {"profile": "smoke", "claims_dir": str(claims)})
    before_any_job(plan)
    record = tmp_path / plan.claims["fourth-ply"].arms["tables-d3s7"].artefact.record
    record.parent.mkdir(parents=True)
    record.write_text(json.dumps({"sha256": "a" * 64}))
    with pytest.raises(DeclarationError, match="key arms.tables-d3s7.leaf.sha256: the frozen"):
        before_any_job(plan)


def test_the_validation_comparator_may_be_a_pinned_file(tmp_path, monkeypatch) -> None:
    from claims_support import claims_copy

    monkeypatch.chdir(tmp_path)
    digest = npy(tmp_path / "fair.npy", FAIR_WEIGHTS)
    claims = claims_copy(tmp_path / "claims", lambda d: d["validation"].update(
        comparator={"file": "fair.npy", "sha256": digest}), claim="linear-trained-leaf")
    plan = load_plan(REPO, {"profile": "smoke", "claims_dir": str(claims)})
    p = plan.claims["linear-trained-leaf"]
    name = f"pinned-{digest[:8]}-d2s3"
    assert p.comparator == name
    assert p.validation_arms[name].policy == f"search:leaf=linear-file:{digest}:fair.npy,d=2,s=3"
    assert list(p.pinned) == ["validation.comparator"]
    before_any_job(plan)


def test_a_shipped_claims_file_is_read_from_the_repository_in_any_directory(
        tmp_path, monkeypatch) -> None:
    """A relative path missing from the working directory is read from the repository (a
    shipped claim's config/pinned/); a different file at that path in the working directory is
    read first and refused by its hash, never swapped for the repository's."""
    shipped = "config/pinned/reveal-construction-a900.json"
    digest = sha(REPO / shipped)
    monkeypatch.chdir(tmp_path)
    assert check_pinned(shipped, digest, ("aligned_double_hit",)).kind == "linear-file"
    (tmp_path / "config" / "pinned").mkdir(parents=True)
    (tmp_path / shipped).write_text(json.dumps([*FAIR_WEIGHTS.tolist(), 1.0]))
    with pytest.raises(PinnedError, match="is not the pinned"):
        check_pinned(shipped, digest, ("aligned_double_hit",))


@pytest.mark.parametrize(("pin", "said"), [
    ("A" * 64, "upper-case hex digits: write the SHA-256 in lower case"),
    ("...", "'...' is not hex digits (a placeholder?)"),
    ("TODO", "'TODO' is not hex digits (a placeholder?)"),
    ("abc123", "6 hex digits: a SHA-256 has 64"),
])
def test_a_bad_sha256_is_named_by_its_key_and_what_is_wrong(tmp_path, monkeypatch, pin,
                                                             said) -> None:
    """Not "unknown key file": the pin's own branch of the leaf's schema says what is wrong."""
    monkeypatch.chdir(tmp_path)
    np.save(tmp_path / "w.npy", FAIR_WEIGHTS)
    own, path = _claim(tmp_path, {"file": "w.npy", "sha256": pin})
    with pytest.raises(DeclarationError) as err:
        _plan(tmp_path, own)
    assert str(err.value) == f"{path}: key arms.fair-d2s7.leaf.sha256: " + said + (
        str(err.value).split(said, 1)[1])
    assert "unknown key" not in str(err.value) and "\n" not in str(err.value)


def test_a_mismatched_pin_prints_both_hashes_in_full(tmp_path, monkeypatch) -> None:
    """Two pins sharing their first 16 digits are told apart: both in full, and where they
    first differ."""
    monkeypatch.chdir(tmp_path)
    np.save(tmp_path / "w.npy", FAIR_WEIGHTS)
    have = sha(tmp_path / "w.npy")
    pin = have[:40] + ("0" if have[40] != "0" else "1") + have[41:]
    own, path = _claim(tmp_path, {"file": "w.npy", "sha256": pin})
    with pytest.raises(DeclarationError) as err:
        before_any_job(_plan(tmp_path, own))
    assert str(err.value) == (f"{path}: key arms.fair-d2s7.leaf.sha256: w.npy: SHA-256 "
                              f"{have} is not the pinned {pin} (they differ from hex digit 41 on)")


def test_a_pinned_file_by_absolute_path_is_recorded_relative_to_the_run(tmp_path,
                                                                        monkeypatch) -> None:
    """Its policy string, protocol hash and records hold the run-relative path, not this
    machine's: the same claim planned in another directory is the same experiment."""
    hashes = []
    for run in (tmp_path / "one", tmp_path / "two"):
        (run / "w").mkdir(parents=True)
        monkeypatch.chdir(run)
        digest = npy(run / "w" / "cma.npy", FAIR_WEIGHTS)
        own, _ = _claim(run, {"file": str(run / "w" / "cma.npy"), "sha256": digest})
        p = _plan(run, own).claims["fair-depth-prefix"]
        assert p.arms["fair-d2s7"].policy == f"search:leaf=linear-file:{digest}:w/cma.npy,d=1,s=3"
        described = p.describe()
        record = experiment_record(described, "2026-12-06T00:00:00Z", [])
        assert str(run) not in json.dumps(described) + json.dumps(record)
        hashes.append(protocol_sha256(described))
    assert hashes[0] == hashes[1]


@pytest.mark.parametrize("where", ["../w.npy", "ABSOLUTE"])
def test_a_pinned_file_outside_the_run_is_refused_in_one_line(tmp_path, monkeypatch,
                                                             where) -> None:
    run = tmp_path / "run"
    run.mkdir()
    monkeypatch.chdir(run)
    digest = npy(tmp_path / "w.npy", FAIR_WEIGHTS)
    file = str(tmp_path / "w.npy") if where == "ABSOLUTE" else where
    own, path = _claim(run, {"file": file, "sha256": digest})
    with pytest.raises(DeclarationError) as err:
        _plan(run, own)
    assert str(err.value).startswith(f"{path}: key arms.fair-d2s7.leaf.file: {file} is outside "
                                     f"the run's directory ({run})")
