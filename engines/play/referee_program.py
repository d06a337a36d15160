"""One external program as the referee runs it: its pipes, with deadlines, and its end.

A :class:`Program` runs under :mod:`engines.play.supervisor`, in a process group
of its own that is killed after a fault, after ``quit`` (once the program had
:data:`QUIT_LIMIT_S` to exit) and when the harness dies (an ``atexit`` hook;
a harness killed by a signal leaves this to the supervisor).  Every write has
a deadline (a full input pipe is :class:`InputFullError`, a time-out), and a
program's lines are read with every byte that is not printable ASCII escaped
(:func:`printable`).  Starting one and shaking hands is
:mod:`engines.play.referee_start`; playing it is
:mod:`engines.play.external_policy`.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import os
import select
import shutil
import signal
import subprocess
import sys
import time
import weakref

from engines.play import referee_messages as msg

#: seconds a program is given to exit after ``quit`` before its process group is killed
QUIT_LIMIT_S = 2.0
#: the supervisor every program runs under (:mod:`engines.play.supervisor`)
SUPERVISOR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "supervisor.py")


class ProgramError(RuntimeError):
    """A decision the program did not give (a time-out, the program exited or closed its
    output), or a program that cannot start."""


class InputFullError(TimeoutError):
    """A line that could not be written by its deadline: the program does not read its
    input (a time-out, like an answer that does not come)."""

    def __str__(self) -> str:
        return "its input pipe stayed full (it does not read its input)"


class Program:
    """One running program: its pipes, a writer and a line reader with deadlines, and its end.

    The program runs under :mod:`engines.play.supervisor`, the leader of a new process
    group, so that a time-out, a ``quit`` or the harness's death stops whatever it started
    too (see :meth:`kill`)."""

    def __init__(self, command: tuple[str, ...]) -> None:
        _check_command(command[0])
        self.proc = subprocess.Popen(
            [sys.executable, "-S", SUPERVISOR, str(os.getpid()), *command],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0, start_new_session=True)
        self._killed = False
        _RUNNING.add(self)
        self._fd = self.proc.stdout.fileno()
        self._in = self.proc.stdin.fileno()
        os.set_blocking(self._in, False)
        self._buf = b""
        #: the features it offered in its handshake (``feature NAME VERSION``), name -> version
        self.features: dict[str, str] = {}

    def send(self, line: str, deadline: float) -> None:
        """Write one line by ``deadline`` (``time.monotonic``): a program that does not read
        its input, so that the pipe stays full until then, is a ``TimeoutError``; one that
        has exited a :class:`ProgramError`."""
        data = line.encode("ascii") + b"\n"
        while data:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([], [self._in], [], left)[1]:
                raise InputFullError
            try:
                data = data[os.write(self._in, data):]
            except BlockingIOError:
                continue
            except OSError:  # a broken pipe
                raise self._gone("input") from None

    def read_line(self, deadline: float) -> str:
        """The next line, waiting until ``deadline`` (``time.monotonic``)."""
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            ready = select.select([self._fd], [], [], max(left, 0))[0] if left > 0 else []
            if not ready:
                raise TimeoutError
            data = os.read(self._fd, 65536)
            if not data:
                raise self._gone("output")
            self._buf += data
        line, _, self._buf = self._buf.partition(b"\n")
        return printable(line.strip())

    def _gone(self, pipe: str) -> ProgramError:
        """The error of a pipe found closed, by a write (broken pipe: ``pipe`` is "input")
        or a read (end of file: "output").  A program that has exited says so with its
        status, whichever pipe found it first (a race); one still running closed the pipe."""
        try:
            code = self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            return ProgramError(f"the program closed its {pipe} (it had not exited)")
        return ProgramError(f"the program exited (exit status {code})")

    def kill(self) -> None:
        """Stop the program and everything in its process group, and reap it.

        The group is killed even when its leader has exited already: a program's children
        (a server it started, a worker) stay in the group and must not outlive it.  The
        group's id stays the leader's while any member lives, so it names no one else; it is
        killed once (a second call does nothing: by then the id may name another group)."""
        if self._killed:
            return
        self._killed = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        _RUNNING.discard(self)
        for pipe in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                pipe.close()

    def quit(self) -> list[str]:
        """Send ``quit``, give the program :data:`QUIT_LIMIT_S` to exit (the grace), then kill
        its process group; the lines it wrote that no one read (read until it closes its
        output)."""
        deadline = time.monotonic() + QUIT_LIMIT_S
        left: list[str] = []
        with contextlib.suppress(ProgramError, OSError, TimeoutError):
            self.send(msg.QUIT, deadline)
        with contextlib.suppress(OSError):
            self.proc.stdin.close()
        with contextlib.suppress(ProgramError, OSError, TimeoutError):
            while True:
                left.append(self.read_line(deadline))
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=max(deadline - time.monotonic(), 0))
        self.kill()
        return left


#: the programs started and not yet killed (killed at the harness's exit)
_RUNNING: weakref.WeakSet[Program] = weakref.WeakSet()


@atexit.register
def _kill_running() -> None:
    """At the harness's exit, kill every program it started that is still running (a harness
    killed by a signal leaves this to the supervisor)."""
    for program in list(_RUNNING):
        program.kill()


def _check_command(word: str) -> None:
    """An ``OSError`` for a command word that names no program that can be run (the
    supervisor would only see it once it runs)."""
    if shutil.which(word) is None:
        there = os.path.exists(word) if "/" in word else False
        code = errno.EACCES if there else errno.ENOENT
        raise OSError(code, os.strerror(code), word)


def printable(raw: bytes) -> str:
    """A program's line as text that is safe in a log: printable ASCII and tabs as they are,
    every other byte as ``\\xNN``."""
    return "".join(chr(b) if 32 <= b < 127 or b == 9 else f"\\x{b:02x}" for b in raw)

