"""The data-size half of scripts/bench (BENCH_DATA=large): keeper on the small bench database
against keeper on the large one (bench/make_large.py), the same cases back to back, the order
alternating between repeats. A ratio is the median of the per-repeat ratios large ÷ small of
requests per second. scripts/bench runs it twice: with the large database's PostgreSQL free to use
the machine's memory, then with it capped by a memory cgroup (BENCH_LABEL says which).

Prints a table (ratio, p99 and PostgreSQL CPU µs per request of each), the sizes of the large
database's current audit and top-up partitions and their indexes, and a last line "SIZES <label>
R2@32=0.97x/p99=... ..." a script can read; appends its runs to $BENCH_STATE/bench/sizes.json.
"""
import json
import os
import re
import shlex
import sys

import measure
from measure import median

SMALL = os.environ["BENCH_STATE"]
LARGE = os.environ["BENCH_LARGE_STATE"]
PORTS = {"small": int(os.environ["BENCH_KEEPER_PORT"]), "large": int(os.environ["BENCH_LARGE_PORT"])}
DURATION = int(os.environ.get("BENCH_SECONDS", "5"))
REPEATS = int(os.environ.get("BENCH_REPEATS", "3"))
CONNECTIONS = [int(c) for c in re.split(r"[\s,]+", os.environ.get("BENCH_CONNECTIONS", "32").strip())]
CASES = re.split(r"[\s,]+", os.environ.get("BENCH_SIZE_CASES", "R1 R2 R3 R4").strip())
LABEL = os.environ.get("BENCH_LABEL", "uncapped")
PSQL = shlex.split(os.environ["BENCH_LARGE_PSQL"])


def pid_files(state):
    return {"nginx": f"{state}/nginx/nginx.pid", "keeper": f"{state}/run/keeper.pid",
            "postgres": f"{state}/pg/postmaster.pid"}


def run(which, case, connections):
    state = SMALL if which == "small" else LARGE
    return measure.wrk(f"http://127.0.0.1:{PORTS[which]}", f"{state}/bench/{case}.lua", connections, DURATION,
                       pid_files(state))


def hot_partition_sizes():
    """The current month's audit_log and topups partitions: rows, heap and each index, MB."""
    return measure.relation_sizes(PSQL, "c.relname IN ('audit_log_p' || to_char(now(), 'YYYY_MM'), "
                                        "'topups_p' || to_char(now(), 'YYYY_MM'))")


def main():
    # Each stack once before measuring: after a restart (the capped runs start with empty caches)
    # the first seconds read what the steady state keeps in memory.
    for case in CASES:
        for which in PORTS:
            run(which, case, CONNECTIONS[-1])
    runs = {}
    for case in CASES:
        for connections in CONNECTIONS:
            for repeat in range(REPEATS):
                order = ["small", "large"] if repeat % 2 == 0 else ["large", "small"]
                for which in order:
                    r = run(which, case, connections)
                    runs.setdefault(f"{case}@{connections}", {"small": [], "large": []})[which].append(r)
                    print(f"  {LABEL:8} {case:3} c={connections:<4} #{repeat + 1} {which:6} {r['rps']:8.0f} req/s  "
                          f"p99 {r['p99']:7.2f} ms  errors {r['errors']}  non-2xx {r['non2xx']}", file=sys.stderr, flush=True)
    report(runs)


def report(runs):
    print()
    print(f"large database ({LABEL}) vs small: {DURATION}s per run, {REPEATS} repeats; ratio = median of "
          "per-repeat req/s ratios large ÷ small; p99 ms and PostgreSQL CPU µs/request are medians")
    print(f"{'case':8} | {'ratio':>6} | {'small rps':>9} {'p99':>7} {'pg us':>6} | {'large rps':>9} {'p99':>7} {'pg us':>6}")
    summary, failures = [], 0
    for key, by in runs.items():
        s, l = by["small"], by["large"]
        ratio = median([lr["rps"] / sr["rps"] for sr, lr in zip(s, l)])
        m = lambda rs, field: median([r.get(field, float("nan")) for r in rs])
        failures += sum(r["errors"] + r["non2xx"] for r in s + l)
        print(f"{key:8} | {ratio:6.2f} | {m(s, 'rps'):9.0f} {m(s, 'p99'):7.2f} {m(s, 'cpu_postgres'):6.0f} | "
              f"{m(l, 'rps'):9.0f} {m(l, 'p99'):7.2f} {m(l, 'cpu_postgres'):6.0f}")
        summary.append(f"{key}={ratio:.2f}x/p99={m(l, 'p99'):.1f}ms")
    print("the large database's current partitions (rows; heap and each index, MB):")
    for name, rows, heap, indexes in hot_partition_sizes():
        print(f"  {name:22} {int(rows):>12,} rows  heap {heap:>6}  {indexes}")
    path = f"{SMALL}/bench/sizes.json"
    saved = json.load(open(path)) if os.path.exists(path) else {}
    saved[LABEL] = runs
    with open(path, "w") as f:
        json.dump(saved, f, indent=1)
    print(f"SIZES {LABEL} {' '.join(summary)} failed={failures}")


if __name__ == "__main__":
    main()
