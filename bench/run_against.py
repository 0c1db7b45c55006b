"""The measuring half of `scripts/bench --against REF`: this tree's keeper against REF's, both
stacks up at once on this machine, the same load against each in turn.

Each case runs REPEATS times against each tree, the order alternating between repeats (this tree
first, then REF first, ...), so neither always runs on a warmer machine. A case's ratio is the
median of the per-repeat ratios of requests per second, this tree ÷ REF; p99 and the CPU per
call of each tree's nginx, workers and PostgreSQL are medians. The verdict names every case this
tree serves more than 3 % slower (docs/performance.md, "The gate"), and the exit status is 3
when there is one, so a script can stop on it.
"""
import os
import re
import sys

import measure
from measure import median

STATE = os.environ["BENCH_STATE"]
AGAINST_STATE = os.environ["BENCH_AGAINST_STATE"]
AGAINST = os.environ["BENCH_AGAINST"]
DURATION = int(os.environ.get("BENCH_SECONDS", "5"))
REPEATS = int(os.environ.get("BENCH_REPEATS", "3"))
CONNECTIONS = int(os.environ.get("BENCH_CONNECTIONS", "32"))
CASES = re.split(r"[\s,]+", os.environ.get("BENCH_CASES", "R1 R1g R2 R3 R4").strip())
MOST_COST = 0.03  # a case slower than this needs a reason in its change's note
TARGETS = {
    "tree": (int(os.environ["BENCH_KEEPER_PORT"]), STATE),
    "against": (int(os.environ["BENCH_AGAINST_PORT"]), AGAINST_STATE),
}


def pid_files(state):
    return {"nginx": f"{state}/nginx/nginx.pid", "keeper": f"{state}/run/keeper.pid",
            "postgres": f"{state}/pg/postmaster.pid"}


def run(target, case):
    port, state = TARGETS[target]
    url = f"http://127.0.0.1:{port}" + ("/GlobalApi.asmx/GetUtcNow" if case == "R1g" else "")
    # This tree's wrk scripts for both: the same calls, sessions and logins (bench/make_load.py).
    script = None if case == "R1g" else f"{STATE}/bench/{case}.lua"
    return measure.wrk(url, script, CONNECTIONS, DURATION, pid_files(state))


def main():
    runs = {case: {"tree": [], "against": []} for case in CASES}
    for case in CASES:
        for repeat in range(REPEATS):
            order = ["tree", "against"] if repeat % 2 == 0 else ["against", "tree"]
            for target in order:
                r = run(target, case)
                runs[case][target].append(r)
                print(f"  {case:4} #{repeat + 1} {target:7} {r['rps']:9.0f} req/s  p99 {r['p99']:7.2f} ms  "
                      f"errors {r['errors']}  non-2xx {r['non2xx']}", file=sys.stderr, flush=True)
    sys.exit(report(runs))


def report(runs):
    print()
    print(f"this tree against {AGAINST}: {DURATION}s per run, {REPEATS} repeats (order alternating), "
          f"{CONNECTIONS} connections, {os.cpu_count()} cores; ratio = median of per-repeat req/s ratios; "
          "p99 ms and CPU us/request (nginx, workers, PostgreSQL) are medians")
    header = (f"{'case':5} | {'ratio':>6} | {'tree rps':>9} {'p99':>7} {'nginx':>6} {'work':>6} {'pg':>6} | "
              f"{'REF rps':>9} {'p99':>7} {'nginx':>6} {'work':>6} {'pg':>6}")
    print(header)
    print("-" * len(header))
    summary, costly, failed = [], [], 0
    for case, by in runs.items():
        t, a = by["tree"], by["against"]
        ratio = median([tr["rps"] / ar["rps"] for tr, ar in zip(t, a)])
        m = lambda rs, field: median([r.get(field, float("nan")) for r in rs])
        cells = lambda rs: (f"{m(rs, 'rps'):9.0f} {m(rs, 'p99'):7.2f} {m(rs, 'cpu_nginx'):6.0f} "
                            f"{m(rs, 'cpu_keeper'):6.0f} {m(rs, 'cpu_postgres'):6.0f}")
        print(f"{case:5} | {ratio:6.2f} | {cells(t)} | {cells(a)}")
        failed += sum(r["errors"] + r["non2xx"] for r in t + a)
        summary.append(f"{case}={ratio:.2f}x/p99={m(t, 'p99'):.1f}:{m(a, 'p99'):.1f}ms")
        if ratio < 1 - MOST_COST:
            costly.append(f"{case} {ratio:.2f}x")
    if failed:
        print(f"verdict: {failed} calls failed; the ratios do not compare")
    elif costly:
        print(f"verdict: slower than {AGAINST} by more than {MOST_COST:.0%} in {', '.join(costly)}: "
              "the change's note says what that buys, or the change is not kept")
    else:
        print(f"verdict: no case slower than {AGAINST} by more than {MOST_COST:.0%}")
    print(f"AGAINST {AGAINST} {' '.join(summary)} failed={failed}")
    return 3 if costly or failed else 0


if __name__ == "__main__":
    main()
