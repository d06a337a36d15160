"""A hostile player of the referee protocol in plain Python (no project imports), for the tests.

It shakes hands (``name NAME``, ``option side left``, ``feature values 1`` with
``--values``, ``ready``) and answers ``go id N`` with the leftmost legal
column, and ``values id N`` with each legal column's count of empty cells.
Flags make it hostile:

``--fill-after-ready``
    fills its own input pipe (it writes into it) before ``ready`` and never reads
    again, so that every write of the harness after ``hello`` finds the pipe full;
``--silent``
    reads everything and answers no ``go`` and no ``values``;
``--child PIDFILE``
    starts a child that sleeps a minute and writes ``PLAYER_PID CHILD_PID`` to
    PIDFILE; it exits at ``quit`` without stopping the child;
``--name TEXT`` / ``--answer TEXT``
    its name, and its answer to every ``go``, with ``%NN`` read as that byte
    (raw bytes in a log);
``--choice-answer TEXT`` / ``--values-answer TEXT``
    answers TEXT (``{id}`` replaced by the request's number) to every ``go`` /
    ``values``.
"""

import os
import subprocess
import sys
import time
import urllib.parse


def _bytes(text):
    return urllib.parse.unquote_to_bytes(text)


def _fill_own_input():
    fd = os.open("/proc/self/fd/0", os.O_WRONLY | os.O_NONBLOCK)
    try:
        while True:
            os.write(fd, b"x" * 65536)
    except BlockingIOError:
        pass


def _say(*lines):
    sys.stdout.buffer.write(b"".join(line + b"\n" for line in lines))
    sys.stdout.buffer.flush()


def main(argv):
    flag = dict(zip(argv[::2], argv[1::2], strict=False))
    if "--child" in flag:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        with open(flag["--child"] + ".tmp", "w") as fh:
            fh.write(f"{os.getpid()} {child.pid}")
        os.replace(flag["--child"] + ".tmp", flag["--child"])
    rows = None
    for line in sys.stdin:
        words = line.split()
        if words[:1] == ["drop7"]:
            features = [b"feature values 1"] if "--values" in argv else []
            if "--fill-after-ready" in argv:
                _fill_own_input()
            _say(b"name " + _bytes(flag.get("--name", "hostile")), b"option side left",
                 *features, b"ready")
            if "--fill-after-ready" in argv:
                time.sleep(60)
        elif words[:1] == ["position"]:
            rows = words[2].split("/")
        elif words[:1] == ["go"] and "--silent" not in argv:
            legal = [c for c in range(7) if rows[0][c] == "0"]
            answer = flag.get("--choice-answer", f"move {legal[0]} id {{id}}")
            if "--answer" in flag:
                _say(_bytes(flag["--answer"]))
            else:
                _say(answer.replace("{id}", words[2]).encode())
        elif words[:1] == ["values"] and "--silent" not in argv:
            values = [str(sum(r[c] == "0" for r in rows)) if rows[0][c] == "0" else "-"
                      for c in range(7)]
            answer = flag.get("--values-answer", f"values id {{id}} {' '.join(values)}")
            _say(answer.replace("{id}", words[2]).encode())
        elif words == ["quit"]:
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
