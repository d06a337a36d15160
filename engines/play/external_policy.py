"""The harness side of the referee protocol: another program plays as a policy.

:class:`ExternalPolicy` is the player of an ``external[...]:COMMAND`` policy
(:mod:`engines.play.policy_grammar`).  It starts the program (in the harness's
working directory, with the harness's environment; its standard error goes
to the harness's), shakes hands, sets the declared options, and then for
each decision sends the public state and ``go id N`` and reads the answer
``move C id N``.  The harness keeps the seed, the rules and the random
streams; the program sees only what
:func:`engines.play.referee_messages.position_line` writes.

Faults are recorded by the games driver (:mod:`engines.play.games`), never
hidden, and the game goes on with the driver's fallback (centre-first):

* a column that is off the board or full, an answer that is not
  ``move C id N`` for the pending ``go``, or a surplus line (a ``move`` of an
  earlier ``go``, read while waiting for this one's answer):
  :meth:`ExternalPolicy.choose` returns it (or -1), an ``illegal`` decision;
* no answer within ``movetime + grace``, or a program that exits or closes its
  output: it raises :class:`~engines.play.referee_program.ProgramError`, an
  ``unfinished`` decision; the program is stopped and started afresh
  (handshake, options, ``newgame``) at the next decision; when that fails,
  every later decision of the game is ``unfinished`` and the next game tries
  again.
* every write has the deadline of what it belongs to (a full input pipe is a
  time-out, :class:`~engines.play.referee_program.InputFullError`); after
  :data:`GAME_TIMEOUTS` time-outs in a game, the rest of its decisions are
  ``unfinished`` without being asked.

Every program runs under :mod:`engines.play.supervisor`, in a process group of
its own (:mod:`engines.play.referee_program`); a program's lines are read
with every byte that is not printable ASCII escaped.

An answer after ``movetime`` but within the grace is played; it is logged
and counted (the count is logged when the player closes).  Every log line
names the game's seed and the move.

A program that cannot start before the first game is a
:class:`~engines.play.arm_specs.PolicyError`: one line, exit status 2
(:mod:`engines.play.referee_start`).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import numpy as np

from engines.drop7 import core
from engines.drop7.trajectory import replay_seeded
from engines.play import referee_messages as msg
from engines.play.arm_specs import ExternalSpec, PolicyError
from engines.play.players import Policy
from engines.play.referee_program import InputFullError, Program, ProgramError
from engines.play.referee_start import start

#: time-outs of one game after which the rest of its decisions are not asked (unfinished)
GAME_TIMEOUTS = 3


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _stale(line: str, decision: int) -> bool:
    """Whether ``line`` answers a request numbered below ``decision`` (a ``move`` or a
    ``values`` answer): a surplus line."""
    move = msg.parse_move(line)
    values = msg.parse_values_answer(line)
    earlier = move[1] if move is not None else values[0] if values is not None else None
    return earlier is not None and earlier < decision


class ExternalPolicy(Policy):
    """An external program as a player (see the module's docstring for its faults).

    ``late`` and ``surplus`` count the answers after ``movetime`` (within the grace) and
    the surplus lines since the player was made; :meth:`close` logs them."""

    def __init__(self, spec: ExternalSpec, log: Callable[[str], None] = _stderr) -> None:
        self.spec, self.ext, self.log = spec, spec, log
        self.seed: int | None = None
        self._late_seed: int | None = None
        self.decision = self.games = self.late = self.surplus = 0
        try:
            self.program: Program | None
            self.program, self.program_name = start(self.ext)
        except ProgramError as exc:
            raise PolicyError(f"{self.name}: the program cannot start: {exc}") from None
        self._newgame = self._gave_up = False
        self._timeouts = 0  # of this game
        #: ``values`` answers that were not values of every legal column (logged, counted)
        self.value_faults = 0
        self.offers_values = (self.program.features.get(msg.VALUES)
                              == str(msg.FEATURES[msg.VALUES]))

    def warm_up(self) -> None:
        """Compile the position line's writer, so a game's wall time excludes it."""
        _, state, cols = replay_seeded(0, [])  # an opening position
        msg.position_line(state, cols)

    def new_game(self, seed: int) -> None:
        """Tell the program a game starts (the seed stays with the harness, for the logs)."""
        self._newgame, self._gave_up = True, False
        self._timeouts = 0
        self.seed = seed
        self.games += 1

    def _ready(self) -> Program:
        """The running program, started again after a fault (unless the game has had
        :data:`GAME_TIMEOUTS` time-outs: then no decision of it is asked any more)."""
        if self._timeouts >= GAME_TIMEOUTS:
            raise ProgramError(f"the program timed out {self._timeouts} times in this game: "
                               "the rest of the game is not asked")
        if self.program is None:
            if self._gave_up:
                raise ProgramError("the program could not be restarted in this game")
            try:
                self.program, _ = start(self.ext)
            except ProgramError as exc:
                self._gave_up = True  # one start's wait per game at most
                raise ProgramError(f"the program could not be restarted: {exc}") from None
            self._newgame = True
        return self.program

    def _request(self, state: np.ndarray, cols: np.ndarray, request: Callable[[int], str]
                 ) -> tuple[Program, float, float]:
        """Send ``newgame`` (when a game started), the position and ``request(N)`` for the
        next request number N; the program, when it was sent and the answer's deadline (every
        write is within it: a full input pipe is a time-out)."""
        program = self._ready()
        self.decision += 1
        sent = time.monotonic()
        deadline = sent + self.ext.limit_s  # a restart is not its time
        if self._newgame:
            program.send(msg.NEWGAME, deadline)
            self._newgame = False
        program.send(msg.position_line(state, cols), deadline)
        program.send(request(self.decision), deadline)
        return program, sent, deadline

    def _timeout(self, what: str, exc: TimeoutError) -> ProgramError:
        """The fault of a time-out (no answer, or a full input pipe), counted for the game."""
        self._timeouts += 1
        why = f"{exc}" if isinstance(exc, InputFullError) else f"no {what}"
        return self._fault(f"{why} within {self.ext.limit_s * 1000:.0f} ms (time-out); the "
                           "program is stopped")

    def _fault(self, message: str) -> ProgramError:
        if self.program is not None:
            self.program.kill()
            self.program = None
        return ProgramError(message)

    def _say(self, move: int, text: str) -> None:
        """One log line naming the game's seed, the move and the program."""
        self.log(f"seed {self.seed} move {move}: {self.program_name or self.name} {text}")

    def choose(self, state: np.ndarray, cols: np.ndarray) -> int:
        """Send the position and ``go id N``; the column of the answer ``move C id N``
        (-1 for a malformed answer or when a surplus line came first)."""
        move = int(state[core.ST_MOVES_PLAYED])
        surplus: list[str] = []
        try:
            program, sent, deadline = self._request(
                state, cols, lambda n: msg.go_line(n, self.ext.movetime_ms))
            while True:
                line = program.read_line(deadline)
                answer = msg.parse_move(line)
                if _stale(line, self.decision):
                    surplus.append(line)  # an earlier request's answer, however late it came
                elif msg.split(line)[0] != msg.INFO:
                    break
            took_ms = (time.monotonic() - sent) * 1000
        except TimeoutError as exc:
            raise self._timeout("answer", exc) from None
        except ProgramError as exc:
            raise self._fault(str(exc)) from None
        finally:
            for extra in surplus:
                self.surplus += 1
                self._say(move, f"wrote {extra!r} while go {self.decision} was pending: a "
                                "surplus line, answering no pending 'go'; an illegal decision")
        if self.ext.movetime_ms is not None and took_ms > self.ext.movetime_ms:
            self.late += 1
            if self._late_seed != self.seed:  # the first of the game is logged, all counted
                self._late_seed = self.seed
                self._say(move, f"answered in {took_ms:.0f} ms, beyond its movetime of "
                                f"{self.ext.movetime_ms} ms (within the grace): a late "
                                "answer, played (later ones of this game are only counted)")
        if answer is None or answer[1] != self.decision:
            self._say(move, f"answered {line!r} to go {self.decision}, not "
                            f"'{msg.MOVE} C id {self.decision}': an illegal decision")
            return -1
        column = answer[0]
        if surplus:
            return -1
        if not (0 <= column <= 6 and core.is_legal(cols, column)):
            self._say(move, f"answered column {column}, which is not legal: an illegal "
                            "decision")
        return column

    def column_values(self, state: np.ndarray, cols: np.ndarray) -> np.ndarray | None:
        """Send the position and ``values id N``; the value of each column (NaN for an illegal
        one) of the answer ``values id N V0 .. V6``, or None (logged and counted in
        :attr:`value_faults`) for an answer that is not that with a number for each legal
        column and ``-`` for each other.  A time-out, an exit or a closed pipe is a
        :class:`ProgramError`, as for a move.  Only for a program that offers the feature."""
        move = int(state[core.ST_MOVES_PLAYED])
        try:
            program, _, deadline = self._request(state, cols, msg.values_request)
            surplus = 0
            while True:
                line = program.read_line(deadline)
                if _stale(line, self.decision):
                    surplus += 1
                    self.surplus += 1
                    self._say(move, f"wrote {line!r} while values {self.decision} was "
                                    "pending: a surplus line; no values at this root")
                elif msg.split(line)[0] != msg.INFO:
                    break
        except TimeoutError as exc:
            raise self._timeout("values", exc) from None
        except ProgramError as exc:
            raise self._fault(str(exc)) from None
        answer = msg.parse_values_answer(line)
        legal = [bool(core.is_legal(cols, c)) for c in range(7)]
        if surplus:
            self.value_faults += 1
            return None
        if (answer is None or answer[0] != self.decision
                or [v is not None for v in answer[1]] != legal):
            self.value_faults += 1
            self._say(move, f"answered {line!r} to values {self.decision}, not 'values id "
                            f"{self.decision} V0 .. V6' with a number for each legal column "
                            f"and '{msg.NO_VALUE}' for each other: no values at this root")
            return None
        return np.array([np.nan if v is None else v for v in answer[1]])

    def close(self) -> None:
        """Send ``quit`` and stop the program; log the lines it left unread (surplus lines
        after its last decision) and the counts of late answers and surplus lines."""
        program, self.program = getattr(self, "program", None), None
        if program is None:
            return
        for line in program.quit():
            if msg.split(line)[0] != msg.INFO:
                self.surplus += 1
                self.log(f"{self.program_name or self.name} wrote {line!r} after its last "
                         "decision: a surplus line, answering no 'go' (no game charged)")
        if self.late or self.surplus:
            self.log(f"{self.program_name or self.name}: {self.late} late answers (within the "
                     f"grace, played) and {self.surplus} surplus lines in {self.games} games")

    def __del__(self) -> None:
        self.close()
