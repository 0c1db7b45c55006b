"""The workers' latency while another command runs against their database: back-to-back wrk
windows against a running stack, some before the command, all the while it runs, some after,
each with its calls a second, p50, p99 and failed answers. How docs/schema.md ("Maintenance",
"Indexes on the history") measures keeperctl maintain and keeperctl migrate at size.

    python3 bench/latency_during.py URL LUA_SCRIPT CONNECTIONS WINDOW_SECONDS -- COMMAND...

e.g., with scripts/bench's large stack held (BENCH_HOLD=1) or started by hand:
    python3 bench/latency_during.py http://127.0.0.1:18092 var/bench-large/bench/R2.lua 32 2 -- \\
        keeperctl maintain
Prints one line per window (seconds since the start, whether the command was running), the
command's duration and exit status, and the worst p99 before, during and after.
"""
import subprocess
import sys
import threading
import time

import measure

QUIET_WINDOWS = 3  # before and after the command


def window(url, script, connections, seconds, started, command):
    result = measure.wrk(url, script, connections, seconds, {})
    running = command is not None and command.poll() is None
    print(f"t={time.monotonic() - started:6.1f}s {'RUNNING' if running else '       '} "
          f"rps={result['rps']:8.0f} p50={result['p50']:7.2f}ms p99={result['p99']:8.2f}ms "
          f"failed={result['non2xx'] + result['errors']}", flush=True)
    return result["p99"]


def main():
    if "--" not in sys.argv or len(sys.argv) < 7:
        sys.exit(__doc__)
    split = sys.argv.index("--")
    url, script, connections, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    command_line = sys.argv[split + 1:]
    started = time.monotonic()
    worst = {"before": 0.0, "during": 0.0, "after": 0.0}
    for _ in range(QUIET_WINDOWS):
        worst["before"] = max(worst["before"], window(url, script, connections, seconds, started, None))
    command_started = time.monotonic()
    command = subprocess.Popen(command_line)
    ended = []
    waiter = threading.Thread(target=lambda: (command.wait(), ended.append(time.monotonic())))
    waiter.start()
    while command.poll() is None:
        worst["during"] = max(worst["during"], window(url, script, connections, seconds, started, command))
    waiter.join()
    ran_for = ended[0] - command_started
    for _ in range(QUIET_WINDOWS):
        worst["after"] = max(worst["after"], window(url, script, connections, seconds, started, None))
    print(f"command: {ran_for:.1f} s, exit {command.returncode}; "
          f"worst p99 before {worst['before']:.1f} ms, during {worst['during']:.1f} ms, after {worst['after']:.1f} ms")
    return command.returncode


if __name__ == "__main__":
    sys.exit(main())
