"""The measuring half of scripts/bench: runs every case against keeper and the baseline, back to
back, and prints the table and a one-line summary. scripts/bench starts the stacks and seeds the
data; this file only loads them and reads /proc.

Each case at each connection count runs REPEATS times; the order of the two targets alternates
between repeats (keeper first, then the baseline first, ...), so neither always runs on a warmer
machine. A ratio is the median of the per-repeat ratios of requests per second.
"""
import glob
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import time

import measure
from measure import median

STATE = os.environ["BENCH_STATE"]
DURATION = int(os.environ.get("BENCH_SECONDS", "5"))
REPEATS = int(os.environ.get("BENCH_REPEATS", "3"))
CONNECTIONS = [int(c) for c in re.split(r"[\s,]+", os.environ.get("BENCH_CONNECTIONS", "8 32 128").strip())]
CASES = re.split(r"[\s,]+", os.environ.get("BENCH_CASES", "R1 R1g R2 R2k R3 R3k R4").strip())
TARGETS = {"keeper": int(os.environ["BENCH_KEEPER_PORT"]), "baseline": int(os.environ["BENCH_BASELINE_PORT"])}
PIDS = {  # pid files of each process tree whose CPU is counted
    "nginx": f"{STATE}/nginx/nginx.pid",
    "front": f"{STATE}/front/nginx.pid",  # BENCH_TOPOLOGY=front (scripts/bench)
    "keeper": f"{STATE}/run/keeper.pid",
    "baseline": f"{STATE}/run/baseline.pid",
    "postgres": f"{STATE}/pg/postmaster.pid",
}
CASE_TEXT = {
    "R1": "SOAP 1.1 GetUtcNow",
    "R1g": "GET GetUtcNow",
    "R2": "SOAP SetAccountPermits, 1000 sessions",
    "R2k": "R2, each call with an Idempotency-Key of its own (the baseline ignores the header)",
    "R3": "SOAP TopupPurseFromAtmCard, 1000 cards",
    "R3k": "R3, each call with an Idempotency-Key of its own",
    "R4": "SOAP Authenticate, 1000 logins",
}
# pgbench as the workers' database role (scripts/bench); with it, write cases also measure the
# database's own ceiling: pgbench calling the same functions (bench/make_load.py, CEILING).
PGBENCH = shlex.split(os.environ.get("BENCH_PGBENCH", ""))
CEILING_CASES = ("R2", "R3", "R4")
if unknown := [c for c in CASES if c not in CASE_TEXT]:
    sys.exit(f"unknown case(s) {' '.join(unknown)}; known: {' '.join(CASE_TEXT)}")


def wrk(case, port, connections):
    url = f"http://127.0.0.1:{port}" + ("/GlobalApi.asmx/GetUtcNow" if case == "R1g" else "")
    script = None if case == "R1g" else f"{STATE}/bench/{case}.lua"
    return measure.wrk(url, script, connections, DURATION, PIDS)


# A keyed case runs with its plain case: per repeat, keeper without and with a key back to back and
# the baseline once (it ignores the header, so its run serves both). The key's cost is then the
# median of per-repeat ratios of two adjacent keeper runs, which varies far less between runs than
# a ratio of two ratios to baselines measured minutes apart.
KEYED_OF = {"R2": "R2k", "R3": "R3k"}
PLAIN_OF = {keyed: plain for plain, keyed in KEYED_OF.items()}


def run_order(case, repeat):
    """(target, case) runs of one repeat: the order alternates between repeats, and a keyed case's
    keeper run is next to its plain case's."""
    keyed = KEYED_OF.get(case) if KEYED_OF.get(case) in CASES else None
    order = [("keeper", case)] + ([("keeper", keyed)] if keyed else []) + [("baseline", case)]
    if PGBENCH and case in CEILING_CASES:
        order.append(("ceiling", case))
    return order if repeat % 2 == 0 else order[::-1]


def pgbench(case, connections):
    """The database's ceiling for case: its pgbench script, as many clients as wrk has connections.
    pgbench logs each transaction's latency (into the run directory, which its user owns), so the
    ceiling has a p50 and p99 to set beside keeper's: what the database alone answers in."""
    prefix = f"{STATE}/run/pgbench-{case}"
    args = PGBENCH + ["-n", "-M", "prepared", "-c", str(connections), "-j", "2", "-T", str(DURATION),
                      "-l", f"--log-prefix={prefix}", "-f", f"{STATE}/bench/{case}.pgbench"]
    before = measure.cpu_ticks(PIDS)
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"pgbench {case} failed: {run.stderr.strip()[-500:]}")
    out = run.stdout
    time.sleep(0.5)  # pgbench's server processes end after it does: count their CPU too
    after = measure.cpu_ticks(PIDS)
    latencies = list(transaction_latencies(prefix))
    cuts = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [float("nan")] * 99
    done = int(re.search(r"number of transactions actually processed: (\d+)", out).group(1))
    result = {"rps": float(re.search(r"tps = ([\d.]+)", out).group(1)), "requests": done,
              "p50": cuts[49], "p99": cuts[98], "errors": 0, "non2xx": 0}
    result["cpu_postgres"] = (after["postgres"] - before["postgres"]) * 1e6 / measure.TICK / max(done, 1)
    return result


def transaction_latencies(prefix):
    """Milliseconds of each transaction in pgbench's per-transaction logs (third field, µs),
    removing the logs as they are read."""
    for path in glob.glob(f"{prefix}.*"):
        with open(path) as f:
            for line in f:
                yield int(line.split()[2]) / 1000
        os.remove(path)


def run_target(target, case, connections):
    return pgbench(case, connections) if target == "ceiling" else wrk(case, TARGETS[target], connections)


def main():
    runs = {}  # (case, connections) -> {"keeper": [...], "baseline": [...]}
    for case in CASES:
        if PLAIN_OF.get(case) in CASES:
            continue  # runs with its plain case
        for connections in CONNECTIONS:
            for repeat in range(REPEATS):
                for target, which in run_order(case, repeat):
                    r = run_target(target, which, connections)
                    runs.setdefault((which, connections), {"keeper": [], "baseline": [], "ceiling": []})[target].append(r)
                    latency = f"p50 {r['p50']:6.2f} ms  p99 {r['p99']:7.2f} ms"
                    if target != "ceiling":
                        latency += f"  errors {r['errors']}  non-2xx {r['non2xx']}"
                    print(f"  {which:4} c={connections:<4} #{repeat + 1} {target:9} {r['rps']:9.0f} req/s  {latency}",
                          file=sys.stderr, flush=True)
            if (KEYED_OF.get(case), connections) in runs:
                runs[(KEYED_OF[case], connections)]["baseline"] = runs[(case, connections)]["baseline"]
    report(runs)


def report(runs):
    print()
    print(f"keeper vs baseline: {DURATION}s per run, {REPEATS} repeats (order alternating), {os.cpu_count()} cores; "
          "ratio = median of per-repeat req/s ratios; p50/p99 ms and CPU us/request are medians")
    header = (f"{'case':5} {'conns':>5} | {'ratio':>6} | {'keeper rps':>10} {'p50':>6} {'p99':>7} {'err':>4} {'n2xx':>5} "
              f"{'nginx':>6} {'work':>6} {'pg':>6} | {'base rps':>9} {'p99':>7} {'nginx':>6} {'work':>6} {'pg':>6}")
    print(header)
    print("-" * len(header))
    summary, worst = [], {"errors": 0, "non2xx": 0}
    for (case, connections), by_target in runs.items():
        k, b = by_target["keeper"], by_target["baseline"]
        ratio = median([kr["rps"] / br["rps"] for kr, br in zip(k, b)])
        m = lambda rs, field: median([r.get(field, float("nan")) for r in rs])
        errors = sum(r["errors"] for r in k)
        non2xx = sum(r["non2xx"] for r in k)
        worst["errors"] += errors
        worst["non2xx"] += non2xx
        print(f"{case:5} {connections:>5} | {ratio:6.2f} | {m(k, 'rps'):10.0f} {m(k, 'p50'):6.2f} {m(k, 'p99'):7.2f} "
              f"{errors:>4} {non2xx:>5} {m(k, 'cpu_nginx'):6.0f} {m(k, 'cpu_keeper'):6.0f} {m(k, 'cpu_postgres'):6.0f} | "
              f"{m(b, 'rps'):9.0f} {m(b, 'p99'):7.2f} {m(b, 'cpu_nginx'):6.0f} {m(b, 'cpu_baseline'):6.0f} "
              f"{m(b, 'cpu_postgres'):6.0f}")
        summary.append(f"{case}@{connections}={ratio:.2f}x/p99={m(k, 'p99'):.1f}ms")
    front = [f"{case}@{connections}={median([r['cpu_front'] for r in t['keeper']]):.0f}"
             for (case, connections), t in runs.items() if all("cpu_front" in r for r in t["keeper"])]
    if front:
        print(f"the front's nginx, CPU us/request (keeper's nginx column is the worker host's): {' '.join(front)}")
    for case in CASES:
        print(f"  {case}: {CASE_TEXT[case]}")
    summary += keyed_cost(runs)
    summary += ceiling(runs)
    memory = worker_memory()
    print(f"keeper worker private memory after the run (KiB): {' '.join(str(v) for v in memory) or '?'}")
    with open(f"{STATE}/bench/results.json", "w") as f:
        json.dump({f"{c}@{n}": v for (c, n), v in runs.items()}, f, indent=1)
    print(f"BENCH {' '.join(summary)} errors={worst['errors']} non2xx={worst['non2xx']} "
          f"max_worker_private_kib={max(memory) if memory else '?'}")


def keyed_cost(runs):
    """A keyed case against its plain one, from keeper's two adjacent runs of each repeat (see
    KEYED_OF). Whichever of the two runs first is favoured (measured: 0.76-0.82 with the plain run
    first, 1.08 with the keyed one first, in one run: work the first leaves behind, autovacuum
    among it, lands on the second), so the cost is the geometric mean of the median ratio of
    each order. Printed, and for BENCH."""
    out = []
    for (keyed, connections) in runs:
        plain = PLAIN_OF.get(keyed)
        if (plain, connections) not in runs:
            continue
        ratios = [k["rps"] / p["rps"] for k, p in zip(runs[(keyed, connections)]["keeper"],
                                                      runs[(plain, connections)]["keeper"])]
        plain_first, keyed_first = median(ratios[0::2]), median(ratios[1::2])
        cost = (plain_first * keyed_first) ** 0.5 if ratios[1::2] else plain_first
        print(f"  with a key, {plain} at {connections} connections runs at {cost:.2f}x of its speed without one "
              f"(keyed run second {plain_first:.2f}, first {keyed_first:.2f})")
        out.append(f"{keyed}/{plain}@{connections}={cost:.2f}x")
    return out


def ceiling(runs):
    """keeper against the database's own ceiling: per repeat, keeper's req/s over pgbench's calls/s
    of the same functions at the same concurrency; beside it keeper's ratio to the baseline, and
    the database's CPU per call in each (what keeper's path adds in PostgreSQL itself)."""
    measured = [(key, by) for key, by in runs.items() if by.get("ceiling")]
    if not measured:
        return []
    print("keeper vs the database's ceiling (pgbench calling the same functions, same clients):")
    print(f"{'case':5} {'conns':>5} | {'÷ceiling':>8} {'÷baseline':>9} | {'ceiling/s':>9} {'p50':>6} {'p99':>7} "
          f"{'pg us':>6} | {'keeper p99':>10} {'pg us':>6}")
    out = []
    for (case, connections), by in measured:
        k, c, b = by["keeper"], by["ceiling"], by["baseline"]
        to_ceiling = median([kr["rps"] / cr["rps"] for kr, cr in zip(k, c)])
        to_baseline = median([kr["rps"] / br["rps"] for kr, br in zip(k, b)])
        m = lambda rs, field: median([r.get(field, float("nan")) for r in rs])
        print(f"{case:5} {connections:>5} | {to_ceiling:8.2f} {to_baseline:9.2f} | {m(c, 'rps'):9.0f} "
              f"{m(c, 'p50'):6.2f} {m(c, 'p99'):7.2f} {m(c, 'cpu_postgres'):6.0f} | {m(k, 'p99'):10.2f} "
              f"{m(k, 'cpu_postgres'):6.0f}")
        out.append(f"{case}/ceiling@{connections}={to_ceiling:.2f}x/p99={m(c, 'p99'):.1f}ms")
    return out


def worker_memory():
    """Private (clean + dirty) KiB of each keeper worker process, from smaps_rollup."""
    try:
        with open(PIDS["keeper"]) as f:
            root = int(f.readline())
    except (OSError, ValueError):
        return []
    sizes = []
    for pid in measure.tree(root)[1:]:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                text = f.read()
            sizes.append(sum(int(v) for v in re.findall(r"^Private_(?:Clean|Dirty):\s+(\d+) kB", text, re.M)))
        except OSError:
            pass
    return sizes


if __name__ == "__main__":
    main()
