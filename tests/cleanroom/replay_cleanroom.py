"""Clean-room Drop7 `research` ruleset and `drop7-replay-v1` replayer.

Written from the written rules of the game alone (the research's rules text, which
``docs/engine.md`` restates), without reading the project's engine, its tests or its
code, so that a misreading of the rules shared by the project's own implementations
has a chance to show up as a disagreement.

Plain Python, no dependencies, deliberately naive.  Where the spec is ambiguous
the reading taken here is written down in a comment tagged ``AMBIGUITY``.

Board: ``board[r][c]``, row 0 at the top, column 0 at the left.
Codes: 0 empty, 1..7 numbered disc, 8 solid grey, 9 cracked grey.
"""

from __future__ import annotations

import json
import math
from collections import Counter

ROWS = 7
COLS = 7
EMPTY = 0
SOLID = 8
CRACKED = 9

FORMAT = "drop7-replay-v1"
RULESET = "research"
MOVES_PER_LEVEL = 5
CLEAR_BONUS = 70_000
RISE_BONUS = 17_000
MOVE_LIMIT = 2_000


class ReplayError(Exception):
    """A record the spec says must be refused."""

    def __init__(self, message: str, move: int | None = None) -> None:
        super().__init__(message)
        self.move = move


def wave_value(d: int) -> int:
    """Points per popper at chain depth d: ``isqrt(49 * d^5)`` (= floor(7 d^2.5))."""
    return math.isqrt(49 * d**5)


def opening_board() -> list[list[int]]:
    board = [[EMPTY] * COLS for _ in range(ROWS)]
    board[ROWS - 1] = [SOLID] * COLS
    return board


def column_height(board: list[list[int]], c: int) -> int:
    return sum(1 for r in range(ROWS) if board[r][c] != EMPTY)


def row_run(board: list[list[int]], r: int, c: int) -> int:
    """Length of the contiguous run of occupied cells through (r, c) in row r."""
    lo = c
    while lo > 0 and board[r][lo - 1] != EMPTY:
        lo -= 1
    hi = c
    while hi < COLS - 1 and board[r][hi + 1] != EMPTY:
        hi += 1
    return hi - lo + 1


def find_poppers(board: list[list[int]]) -> list[tuple[int, int]]:
    poppers = []
    for r in range(ROWS):
        for c in range(COLS):
            v = board[r][c]
            if 1 <= v <= 7 and (v == row_run(board, r, c) or v == column_height(board, c)):
                poppers.append((r, c))
    return poppers


def apply_gravity(board: list[list[int]]) -> None:
    """Pack every column from the bottom (greys fall like discs)."""
    for c in range(COLS):
        cells = [board[r][c] for r in range(ROWS - 1, -1, -1) if board[r][c] != EMPTY]
        for i in range(ROWS):
            board[ROWS - 1 - i][c] = cells[i] if i < len(cells) else EMPTY


def board_empty(board: list[list[int]]) -> bool:
    return all(v == EMPTY for row in board for v in row)


class Game:
    """One game under the research ruleset, fed an explicit reveal list."""

    def __init__(
        self,
        reveals: list[int],
        board: list[list[int]] | None = None,
        moves_remaining: int = MOVES_PER_LEVEL,
        level: int = 1,
        score: int = 0,
        stats: Counter | None = None,
    ) -> None:
        self.board = [row[:] for row in board] if board is not None else opening_board()
        self.moves_remaining = moves_remaining
        self.level = level
        self.score = score
        self.moves_played = 0
        self.game_over = False
        self.censored = False
        self.reveals = reveals
        self.next_reveal = 0
        self.stats = stats if stats is not None else Counter()
        self._move = 0
        # AMBIGUITY (start position): the spec does not say whether a start
        # board that already holds poppers is resolved on load.  Reading: no;
        # the board is taken as it stands, and any poppers on it pop in the
        # first move's drop cascade ("every popper on the board as it stands").
        # AMBIGUITY (start position): a start board whose seven columns are all
        # full is not declared over on load; its first move is then refused as
        # a drop in a full column, and a record with no moves reports
        # game_over false.

    # -- cascade -----------------------------------------------------------
    def _draw_reveal(self) -> int:
        if self.next_reveal >= len(self.reveals):
            raise ReplayError("ran out of reveals", self._move)
        value = self.reveals[self.next_reveal]
        self.next_reveal += 1
        # AMBIGUITY: the spec lists no refusal for a reveal value outside 1..7
        # ("holds a disc outside 1..7" is read as the `discs` list).  Reading:
        # reveal values are taken as given; the test only feeds 1..7.
        return value

    def _cascade(self, d: int) -> tuple[int, int, int, int]:
        """Run waves from depth d; return (waves, popped, points, next depth).

        The returned depth is the last wave's depth + 1, or d unchanged if no
        wave found a popper (so a drop with no wave hands 1 to the rise).
        """
        waves = popped = points = 0
        while True:
            poppers = find_poppers(self.board)
            if not poppers:
                return waves, popped, points, d
            waves += 1
            popped += len(poppers)
            points += len(poppers) * wave_value(d)
            self.stats["waves"] += 1
            self.stats["max_depth"] = max(self.stats["max_depth"], d)
            hits: dict[tuple[int, int], int] = {}
            for r, c in poppers:
                self.board[r][c] = EMPTY
            # Hits land on greys only and greys never pop, so counting them
            # after removing the poppers changes nothing.
            for r, c in poppers:
                for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                    if (
                        0 <= rr < ROWS
                        and 0 <= cc < COLS
                        and self.board[rr][cc]
                        in (
                            SOLID,
                            CRACKED,
                        )
                    ):
                        hits[(rr, cc)] = hits.get((rr, cc), 0) + 1
            revealed = []
            for (r, c), n in hits.items():
                if self.board[r][c] == CRACKED:
                    revealed.append((r, c))
                    self.stats["cracked_revealed"] += 1
                elif n >= 2:
                    revealed.append((r, c))
                    self.stats["solid_double_hit"] += 1
                else:
                    self.board[r][c] = CRACKED
                    self.stats["solid_cracked"] += 1
            # Reveals draw in ascending row-major order of their position in
            # the wave (before gravity): row 0 first, then column 0 first.
            for r, c in sorted(revealed):
                self.board[r][c] = self._draw_reveal()
            apply_gravity(self.board)
            d += 1

    # -- a move ------------------------------------------------------------
    def legal_columns(self) -> list[int]:
        return [c for c in range(COLS) if self.board[0][c] == EMPTY]

    def play(self, disc: object, column: object) -> dict:
        m = self.moves_played
        self._move = m
        if self.game_over or self.censored:
            # AMBIGUITY: a censored game "stops after 2,000 moves"; a further
            # move is read as a move after the game is over and refused.
            raise ReplayError("move after the game is over", m)
        if not isinstance(disc, int) or isinstance(disc, bool) or not 1 <= disc <= 7:
            raise ReplayError(f"disc {disc!r} outside 1..7", m)
        if not isinstance(column, int) or isinstance(column, bool) or not 0 <= column < COLS:
            raise ReplayError(f"column {column!r} outside 0..6", m)
        if self.board[0][column] != EMPTY:
            raise ReplayError(f"column {column} is full", m)

        # Place on top of the column.
        h = column_height(self.board, column)
        self.board[ROWS - 1 - h][column] = disc

        waves, popped, points, d = self._cascade(1)
        cleared = False
        if board_empty(self.board):
            points += CLEAR_BONUS
            cleared = True
            self.stats["clears"] += 1

        rose = False
        self.moves_remaining -= 1
        if self.moves_remaining == 0:
            if any(v != EMPTY for v in self.board[0]):
                # H1: no bonus on the rise that ends the game.
                # AMBIGUITY: "rose" is read as "the rows actually shifted up";
                # a rise that ends the game therefore reports rose false, and
                # moves_remaining stays 0 (level unchanged).
                self.game_over = True
                self.stats["game_over_at_rise"] += 1
            else:
                self.board = self.board[1:] + [[SOLID] * COLS]
                self.level += 1
                self.moves_remaining = MOVES_PER_LEVEL
                points += RISE_BONUS
                rose = True
                self.stats["rises"] += 1
                w2, p2, pts2, d = self._cascade(d)
                if w2:
                    self.stats["rise_cascades"] += 1
                    if waves:
                        self.stats["rise_cascades_after_drop_waves"] += 1
                waves += w2
                popped += p2
                points += pts2
                if board_empty(self.board):
                    points += CLEAR_BONUS
                    cleared = True
                    self.stats["clears_after_rise"] += 1

        if not self.game_over and not self.legal_columns():
            self.game_over = True
            self.stats["game_over_full"] += 1

        self.moves_played += 1
        self.score += points
        # AMBIGUITY: "censored" is read as "reached the 2,000-move cap while
        # not over"; a game that ends on its 2,000th move is over, not censored.
        if not self.game_over and self.moves_played >= MOVE_LIMIT:
            self.censored = True
        if self.game_over:
            self.stats["game_overs"] += 1
        self.stats["moves"] += 1
        if waves:
            self.stats["moves_with_waves"] += 1
        return {
            "move": m,
            "column": column,
            "points": points,
            "score": self.score,
            "waves": waves,
            "popped": popped,
            # AMBIGUITY: "cleared" is read as "a 70,000 clear bonus was paid
            # in this move" (after the drop cascade or after the rise cascade).
            "cleared": cleared,
            "rose": rose,
            "game_over": self.game_over,
        }

    def final(self) -> dict:
        return {
            "score": self.score,
            "moves_played": self.moves_played,
            "level": self.level,
            "moves_remaining": self.moves_remaining,
            "game_over": self.game_over,
            "censored": self.censored,
            "board": ["".join(str(v) for v in row) for row in self.board],
        }


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def parse_start(start: object) -> dict:
    """Validate an optional start position; return Game keyword arguments."""
    if not isinstance(start, dict):
        raise ReplayError("start must be an object")
    rows = start.get("board")
    if not isinstance(rows, list) or len(rows) != ROWS:
        raise ReplayError("start board must be 7 row strings")
    board = []
    for row in rows:
        if not isinstance(row, str) or len(row) != COLS or not set(row) <= set("0123456789"):
            raise ReplayError(f"bad start board row {row!r}")
        board.append([int(ch) for ch in row])
    for c in range(COLS):
        for r in range(ROWS - 1):
            if board[r][c] != EMPTY and board[r + 1][c] == EMPTY:
                raise ReplayError(f"floating disc at row {r} column {c}")
    mr = start.get("moves_remaining")
    level = start.get("level")
    score = start.get("score")
    # AMBIGUITY: the spec gives `"moves_remaining": 1..5, "level": n,
    # "score": n` without saying whether they are all required or what bounds
    # n has.  Reading: all three required, level >= 1, score >= 0.
    if not _is_int(mr) or not 1 <= mr <= MOVES_PER_LEVEL:
        raise ReplayError("start moves_remaining must be 1..5")
    if not _is_int(level) or level < 1:
        raise ReplayError("start level must be a positive integer")
    if not _is_int(score) or score < 0:
        raise ReplayError("start score must be a non-negative integer")
    return {"board": board, "moves_remaining": mr, "level": level, "score": score}


def replay_record(record: object, stats: Counter | None = None) -> dict:
    """Replay one parsed record; return the spec's output object."""
    if not isinstance(record, dict):
        raise ReplayError("record is not a JSON object")
    if record.get("format") != FORMAT:
        raise ReplayError(f"format {record.get('format')!r} is not {FORMAT}")
    # AMBIGUITY: the ruleset key is shown in the example but a missing key is
    # not discussed ("research" is "the project's default").  Reading: a
    # missing ruleset means research; any other value is refused.
    if record.get("ruleset", RULESET) != RULESET:
        raise ReplayError(f"ruleset {record.get('ruleset')!r} is not {RULESET}")
    discs = record.get("discs")
    moves = record.get("moves")
    reveals = record.get("reveals", [])
    if not isinstance(discs, list) or not isinstance(moves, list) or not isinstance(reveals, list):
        raise ReplayError("discs, moves and reveals must be lists")
    kwargs = parse_start(record["start"]) if "start" in record else {}
    game = Game(reveals, stats=stats, **kwargs)
    out = []
    for m, column in enumerate(moves):
        # AMBIGUITY: fewer discs than moves is not listed as a refusal; read
        # as an error at that move.  Extra discs (beyond the moves) are
        # ignored, like extra reveals.
        if m >= len(discs):
            raise ReplayError("no disc for this move", m)
        out.append(game.play(discs[m], column))
    return {"moves": out, "final": game.final()}


def replay_lines(lines: list[str], stats: Counter | None = None) -> list[dict]:
    """Replay JSON lines; raise ReplayError naming the first bad line (1-based)."""
    results = []
    for i, line in enumerate(lines, start=1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ReplayError(f"line {i}: not valid JSON ({exc.msg})") from exc
        try:
            results.append(replay_record(record, stats))
        except ReplayError as exc:
            where = f"line {i}" + (f", move {exc.move}" if exc.move is not None else "")
            raise ReplayError(f"{where}: {exc}", exc.move) from exc
    return results
