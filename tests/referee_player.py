"""A player of the referee protocol in plain Python (no project imports), for the tests.

It plays the leftmost legal column (option ``side right``: the rightmost), a
legal column being one whose top cell is empty, and answers ``go id N`` with
``move C id N``.  Flags make it misbehave: ``--answer WORD`` answers WORD
instead of a move, ``--column N`` always answers ``move N id ..``;
``--extra-move-at K`` writes its answer to its K-th ``go`` twice; ``--speaks V``
speaks protocol version V (2 by default; another version is refused with
``error``); ``--no-start`` exits at once; ``--sleep-once FILE`` /
``--crash-once FILE`` / ``--close-output-once FILE`` sleep 60 s / exit /
close its output (and go on reading) at its second decision unless FILE
exists (and create it, so a restarted player behaves); ``--start-once FILE``
refuses to start when FILE exists; ``--delay-ms MS`` waits MS before each
answer.  An option ``side`` other than ``left`` or ``right`` is refused with
``error`` and exit status 6.

With ``--values yes`` it offers the protocol's ``values`` feature (``feature values 1``)
and answers ``values id N`` with each column's value, its count of empty cells
plus 0.5 (``-`` for a full column); ``--values-answer LINE`` answers LINE instead,
``--extra-values-at K`` writes its answer to its K-th ``values`` twice.
"""

import os
import sys
import time


def main(argv):
    flag = dict(zip(argv[::2], argv[1::2], strict=False))
    if "--no-start" in argv:
        return 3
    once = flag.get("--start-once")
    if once and os.path.exists(once):
        return 4
    if once:
        open(once, "w").close()
    side, decisions, rows, closed, asked = "left", 0, None, False, 0
    speaks = flag.get("--speaks", "2")
    for line in sys.stdin:
        words = line.split()
        if words[:1] == ["drop7"]:
            if words != ["drop7", speaks]:
                print(f"error this player speaks version {speaks} only", flush=True)
                return 2
            features = ["feature values 1"] if "--values" in argv else []
            print("name plain-python player", "option side left", *features, "ready", sep="\n",
                  flush=True)
        elif words[:1] == ["setoption"] and words[1] == "side":
            side = words[2]
            if side not in ("left", "right"):
                print(f"error side must be left or right, not {side}", flush=True)
                return 6
        elif words[:1] == ["position"]:
            rows = words[2].split("/")
        elif words[:1] == ["go"]:
            decisions += 1
            for key, act in (("--sleep-once", lambda: time.sleep(60)),
                             ("--crash-once", lambda: sys.exit(5)),
                             ("--close-output-once", lambda: os.close(1))):
                if decisions == 2 and key in flag and not os.path.exists(flag[key]):
                    open(flag[key], "w").close()
                    act()
                    closed = key == "--close-output-once"
            if closed:
                continue
            time.sleep(int(flag.get("--delay-ms", 0)) / 1000)
            legal = [c for c in range(7) if rows[0][c] == "0"]
            column = legal[0] if side == "left" else legal[-1]
            column = flag.get("--column", column)
            answer = flag.get("--answer", f"move {column} id {words[2]}")
            times = 2 if flag.get("--extra-move-at") == str(decisions) else 1
            print(*[answer] * times, sep="\n", flush=True)
        elif words[:1] == ["values"]:
            empty = [sum(row[c] == "0" for row in rows) for c in range(7)]
            values = [str(e + 0.5) if rows[0][c] == "0" else "-" for c, e in enumerate(empty)]
            answer = flag.get("--values-answer", f"values id {words[2]} {' '.join(values)}")
            asked += 1
            times = 2 if flag.get("--extra-values-at") == str(asked) else 1
            print(*[answer] * times, sep="\n", flush=True)
        elif words == ["quit"]:
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
