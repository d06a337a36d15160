"""A player of the referee protocol in plain Python (no project imports), for the tests.

It plays the leftmost legal column (option ``side right``: the rightmost), a
legal column being one whose top cell is empty.  Flags make it misbehave:
``--answer WORD`` answers WORD instead of a move, ``--column N`` always
answers ``move N``; ``--no-start`` exits at
once; ``--sleep-once FILE`` / ``--crash-once FILE`` sleep 60 s / exit at its
second decision unless FILE exists (and create it, so a restarted player
behaves); ``--start-once FILE`` refuses to start when FILE exists.
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
    side, decisions, rows = "left", 0, None
    for line in sys.stdin:
        words = line.split()
        if words == ["drop7", "1"]:
            print("name plain-python player", "option side left", "ready", sep="\n", flush=True)
        elif words[:1] == ["setoption"] and words[1] == "side":
            side = words[2]
        elif words[:1] == ["position"]:
            rows = words[2].split("/")
        elif words[:1] == ["go"]:
            decisions += 1
            for key, act in (("--sleep-once", lambda: time.sleep(60)), ("--crash-once",
                                                                          lambda: sys.exit(5))):
                if decisions == 2 and key in flag and not os.path.exists(flag[key]):
                    open(flag[key], "w").close()
                    act()
            legal = [c for c in range(7) if rows[0][c] == "0"]
            column = legal[0] if side == "left" else legal[-1]
            column = flag.get("--column", column)
            print(flag.get("--answer", f"move {column}"), flush=True)
        elif words == ["quit"]:
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
