"""A player's supervisor: the leader of the player's process group, which ends it with the harness.

:mod:`engines.play.referee_program` starts every external program as
``python -S supervisor.py HARNESS_PID COMMAND...`` in a new session.  The
supervisor asks the kernel for a ``SIGTERM`` when the harness dies
(``prctl(PR_SET_PDEATHSIG)``, Linux; a harness killed with ``SIGKILL`` runs
no code of its own), starts the program in its own process group, and waits
for it.  On ``SIGTERM`` it kills the whole group with ``SIGKILL``: the program
and whatever it started (unless those left the group themselves).  It exits
as the program did (its status, or the same signal), so the harness reads
the program's end.  It imports nothing of the project and keeps no copy of
the program's pipes (a program that closes its output is seen to).
"""

import contextlib
import ctypes
import os
import signal
import sys

#: ``prctl`` option: the signal sent to this process when its parent dies (Linux)
PR_SET_PDEATHSIG = 1
#: the exit status when the command cannot be run (as a shell's)
CANNOT_RUN = 127


def _end_group(_signum: int = 0, _frame: object = None) -> None:
    os.killpg(0, signal.SIGKILL)


def main(argv: list[str]) -> int:
    """Run ``argv[1:]`` under this supervisor; ``argv[0]`` is the harness's process id."""
    harness, command = int(argv[0]), argv[1:]
    signal.signal(signal.SIGTERM, _end_group)
    with contextlib.suppress(OSError, AttributeError):  # not Linux: the harness's clean-up
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM))
    if os.getppid() != harness:  # the harness died before the death signal was asked for
        _end_group()
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        try:
            os.execvp(command[0], command)
        except OSError as exc:
            print(f"{command[0]}: {exc.strerror}", file=sys.stderr, flush=True)
        os._exit(CANNOT_RUN)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):  # the program's pipes are its own: its closing them is seen
        os.dup2(null, fd)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code < 0:  # killed by a signal: die of the same one
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
