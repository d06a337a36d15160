"""The harness side of the referee protocol: another program plays as a policy.

:class:`ExternalPolicy` is the player of an ``external[...]:COMMAND`` policy
(:mod:`engines.play.policy`).  It starts the program (in the harness's
working directory, with the harness's environment; its standard error goes
to the harness's), shakes hands, sets the declared options, and then for
each decision sends the public state and reads one column back.  The
harness keeps the seed, the rules and the random streams; the program sees
only what :func:`engines.play.referee_messages.position_line` writes.

Faults are recorded by the games driver (:mod:`engines.play.games`), never
hidden, and the game goes on with the driver's fallback (centre-first):

* a column that is off the board or full, or an answer that is not
  ``move C``: :meth:`ExternalPolicy.choose` returns it (or -1), an
  ``illegal`` decision;
* no answer within ``movetime + grace``, or a program that exits: it raises
  :class:`ProgramError`, an ``unfinished`` decision; the program is stopped
  and started afresh (handshake, options, ``newgame``) at the next decision;
  when that fails, every later decision of the game is ``unfinished`` and the
  next game tries again.

A program that cannot start before the first game (not found, exits, no
``ready`` within :data:`START_LIMIT_S`, an option it does not accept) is a
:class:`~engines.play.policy.PolicyError`: one line, exit status 2.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np

from engines.drop7 import core
from engines.play import referee_messages as msg
from engines.play.policy import ExternalSpec, Policy, PolicyError, PolicySpec

#: seconds a program may take from its start to ``ready`` (loading, compiling)
START_LIMIT_S = 120.0
#: seconds a program is given to exit after ``quit`` before it is killed
QUIT_LIMIT_S = 2.0


class ProgramError(RuntimeError):
    """A decision the program did not give: a time-out, or the program exited."""


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class Program:
    """One running program: its pipes, a line reader with a deadline, and its end."""

    def __init__(self, command: tuple[str, ...]) -> None:
        # its own process group, so that a time-out stops whatever it started too
        self.proc = subprocess.Popen(list(command), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, bufsize=0,
                                     start_new_session=True)
        self._fd = self.proc.stdout.fileno()
        self._buf = b""

    def send(self, line: str, deadline: float | None = None) -> None:
        """Write one line (a program that does not read its input for so long that the pipe
        is full until ``deadline`` is a ``TimeoutError``; one that has exited a
        :class:`ProgramError`)."""
        if deadline is not None:
            left = deadline - time.monotonic()
            if not select.select([], [self.proc.stdin], [], max(left, 0))[1]:
                raise TimeoutError
        try:
            self.proc.stdin.write(line.encode("ascii") + b"\n")
        except (BrokenPipeError, OSError):
            raise self._exited() from None

    def read_line(self, deadline: float) -> str:
        """The next line, waiting until ``deadline`` (``time.monotonic``)."""
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            ready = select.select([self._fd], [], [], max(left, 0))[0] if left > 0 else []
            if not ready:
                raise TimeoutError
            data = os.read(self._fd, 65536)
            if not data:
                raise self._exited()
            self._buf += data
        line, _, self._buf = self._buf.partition(b"\n")
        return line.decode("ascii", errors="replace").strip()

    def _exited(self) -> ProgramError:
        """The error of a program found gone, by a write (broken pipe) or a read (end of
        file): which one comes first is a race, so both say the same."""
        return ProgramError(f"the program exited{self._status()}")

    def _status(self) -> str:
        try:
            code = self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            return ""
        return f" (exit status {code})"

    def kill(self) -> None:
        """Stop the program and its process group, and reap it."""
        if self.proc.returncode is None:  # not reaped yet, so its group id is still its own
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                pipe.close()

    def quit(self) -> None:
        """Send ``quit``, give the program :data:`QUIT_LIMIT_S` to exit, then stop it."""
        try:
            self.send(msg.QUIT)
            self.proc.stdin.close()
            self.proc.wait(timeout=QUIT_LIMIT_S)
        except (ProgramError, OSError, subprocess.TimeoutExpired):
            pass
        self.kill()


def start(ext: ExternalSpec) -> tuple[Program, str]:
    """Start the program, shake hands and set the options; returns it and its name.

    Raises :class:`ProgramError` naming what went wrong.
    """
    try:
        program = Program(ext.command)
    except OSError as exc:
        raise ProgramError(f"{ext.command[0]}: {exc.strerror or exc}") from None
    try:
        name, accepted = _handshake(program, time.monotonic() + START_LIMIT_S)
        for key, value in ext.options:
            if key not in accepted:
                raise ProgramError(f"the program does not accept option {key!r} (it "
                                    f"accepts: {', '.join(accepted) or 'none'})")
            program.send(f"{msg.SETOPTION} {key} {value}")
    except BaseException:
        program.kill()
        raise
    return program, name


def _handshake(program: Program, deadline: float) -> tuple[str, dict[str, str]]:
    program.send(msg.hello_line())
    name: str | None = None
    accepted: dict[str, str] = {}
    while True:
        try:
            line = program.read_line(deadline)
        except TimeoutError:
            raise ProgramError(f"no '{msg.READY}' within {START_LIMIT_S:g} s") from None
        word, rest = msg.split(line)
        if word == msg.INFO:
            continue
        if word == msg.ERROR:
            raise ProgramError(f"the program refused: {rest}")
        if name is None and word != msg.NAME:
            raise ProgramError(f"expected '{msg.NAME} TEXT' first, got {line!r}")
        if word == msg.NAME:
            name = rest
        elif word == msg.OPTION and len(rest.split()) == 2:
            key, default = rest.split()
            accepted[key] = default
        elif word == msg.READY and not rest:
            return name, accepted
        else:
            raise ProgramError(f"expected '{msg.OPTION} KEY DEFAULT' or '{msg.READY}', "
                                f"got {line!r}")


class ExternalPolicy(Policy):
    """An external program as a player (see the module's docstring for its faults)."""

    def __init__(self, spec: PolicySpec, log: Callable[[str], None] = _stderr) -> None:
        assert spec.external is not None
        self.spec, self.ext, self.log = spec, spec.external, log
        try:
            self.program: Program | None
            self.program, self.program_name = start(self.ext)
        except ProgramError as exc:
            raise PolicyError(f"{self.name}: the program cannot start: {exc}") from None
        self._newgame = self._gave_up = False

    def new_game(self, seed: int) -> None:
        """Tell the program a game starts (the seed stays with the harness)."""
        self._newgame, self._gave_up = True, False

    def _ready(self) -> Program:
        """The running program, started again after a fault, told of a new game."""
        if self.program is None:
            if self._gave_up:
                raise ProgramError("the program could not be restarted in this game")
            try:
                self.program, _ = start(self.ext)
            except ProgramError as exc:
                self._gave_up = True  # one start's wait per game at most
                raise ProgramError(f"the program could not be restarted: {exc}") from None
            self._newgame = True
        if self._newgame:
            self.program.send(msg.NEWGAME)
            self._newgame = False
        return self.program

    def _fault(self, message: str) -> ProgramError:
        if self.program is not None:
            self.program.kill()
            self.program = None
        return ProgramError(message)

    def choose(self, state: np.ndarray, cols: np.ndarray) -> int:
        """Send the position and ``go``; the column answered (-1 for a malformed answer)."""
        deadline = time.monotonic() + self.ext.limit_s
        try:
            program = self._ready()
            deadline = time.monotonic() + self.ext.limit_s  # a restart is not its time
            program.send(msg.position_line(state, cols), deadline)
            program.send(msg.go_line(self.ext.movetime_ms), deadline)
            while True:
                line = program.read_line(deadline)
                if msg.split(line)[0] != msg.INFO:
                    break
        except TimeoutError:
            raise self._fault(f"no answer within {self.ext.limit_s * 1000:.0f} ms (time-out); "
                              "the program is stopped") from None
        except ProgramError as exc:
            raise self._fault(str(exc)) from None
        column = msg.parse_move(line)
        move = int(state[core.ST_MOVES_PLAYED])
        if column is None:
            self.log(f"move {move}: {self.program_name or self.name} answered {line!r}, not "
                     f"'{msg.MOVE} C': an illegal decision")
            return -1
        if not (0 <= column <= 6 and core.is_legal(cols, column)):
            self.log(f"move {move}: {self.program_name or self.name} answered column {column},"
                     " which is not legal: an illegal decision")
        return column

    def close(self) -> None:
        """Send ``quit`` and stop the program."""
        program, self.program = getattr(self, "program", None), None
        if program is not None:
            program.quit()

    def __del__(self) -> None:
        self.close()
