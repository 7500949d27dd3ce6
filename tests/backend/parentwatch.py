#!/usr/bin/env python3
"""
parentwatch.py CMD [ARGS...]

Runs CMD and stops it (SIGTERM, then SIGKILL after 5 s) when this process's stdin reaches EOF or
when this process gets SIGTERM/SIGINT/SIGHUP; exits with CMD's status. tests/harness/stack.mjs holds
the write end of our stdin, so a harness that dies, even by SIGKILL, takes CMD (redis-server, which
cannot watch its parent itself) with it. Standard library only.
"""

import os
import signal
import subprocess
import sys
import threading

GRACE_SECONDS = 5.0


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL)
    stopping = threading.Event()

    def stop(*_args) -> None:
        if stopping.is_set():
            return
        stopping.set()
        if child.poll() is None:
            child.terminate()
            threading.Timer(GRACE_SECONDS, lambda: child.poll() is None and child.kill()).start()

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, stop)

    def watch_stdin() -> None:
        try:
            while os.read(0, 65536):
                pass
        except OSError:
            pass
        stop()

    threading.Thread(target=watch_stdin, daemon=True).start()
    code = child.wait()
    os._exit(code if code >= 0 else 128 - code)


if __name__ == "__main__":
    sys.exit(main())
