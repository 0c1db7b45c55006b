"""The measuring half of scripts/bench: runs every case against keeper and the baseline, back to
back, and prints the table and a one-line summary. scripts/bench starts the stacks and seeds the
data; this file only loads them and reads /proc.

Each case at each connection count runs REPEATS times; the order of the two targets alternates
between repeats (keeper first, then the baseline first, ...), so neither always runs on a warmer
machine. A ratio is the median of the per-repeat ratios of requests per second.
"""
import json
import os
import re
import statistics
import subprocess
import sys

STATE = os.environ["BENCH_STATE"]
DURATION = int(os.environ.get("BENCH_SECONDS", "5"))
REPEATS = int(os.environ.get("BENCH_REPEATS", "3"))
CONNECTIONS = [int(c) for c in re.split(r"[\s,]+", os.environ.get("BENCH_CONNECTIONS", "8 32 128").strip())]
CASES = re.split(r"[\s,]+", os.environ.get("BENCH_CASES", "R1 R1g R2 R2k R3 R3k R4").strip())
TARGETS = {"keeper": int(os.environ["BENCH_KEEPER_PORT"]), "baseline": int(os.environ["BENCH_BASELINE_PORT"])}
PIDS = {  # pid files of each process tree whose CPU is counted
    "nginx": f"{STATE}/nginx/nginx.pid",
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
TICK = os.sysconf("SC_CLK_TCK")
if unknown := [c for c in CASES if c not in CASE_TEXT]:
    sys.exit(f"unknown case(s) {' '.join(unknown)}; known: {' '.join(CASE_TEXT)}")


def tree(root):
    """root and all its descendants (threads are counted with their process)."""
    children = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(pid))
        except (OSError, ValueError, IndexError):
            pass
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def cpu_ticks():
    """utime + stime of every process tree, in clock ticks (children that exited included via cutime)."""
    totals = {}
    for name, pid_file in PIDS.items():
        try:
            with open(pid_file) as f:
                root = int(f.readline())
        except (OSError, ValueError):
            continue
        total = 0
        for pid in tree(root):
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                total += int(fields[11]) + int(fields[12])  # utime, stime
            except (OSError, IndexError):
                pass
        totals[name] = total
    return totals


def to_ms(text):
    number = float(re.match(r"[\d.]+", text).group())
    if text.endswith("us"):
        return number / 1000
    if text.endswith("ms"):
        return number
    if text.endswith("s"):
        return number * 1000
    return number


def wrk(case, port, connections):
    url = f"http://127.0.0.1:{port}"
    args = ["wrk", "-t", "2", "-c", str(connections), "-d", f"{DURATION}s", "--latency", "--timeout", "5s"]
    if case == "R1g":
        url += "/GlobalApi.asmx/GetUtcNow"
    else:
        args += ["-s", f"{STATE}/bench/{case}.lua"]
    before = cpu_ticks()
    out = subprocess.run(args + [url], capture_output=True, text=True, check=True).stdout
    after = cpu_ticks()
    result = {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
        "requests": int(re.search(r"(\d+) requests in", out).group(1)),
        "p50": to_ms(re.search(r"^\s+50%\s+(\S+)", out, re.M).group(1)),
        "p99": to_ms(re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1)),
        "non2xx": int((re.search(r"Non-2xx or 3xx responses: (\d+)", out) or [0, 0])[1]),
        "errors": sum(int(n) for n in (re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
                                        or [None, 0, 0, 0, 0]).groups()) if "Socket errors" in out else 0,
    }
    requests = max(result["requests"], 1)
    for name in PIDS:
        if name in before and name in after:
            result[f"cpu_{name}"] = (after[name] - before[name]) * 1e6 / TICK / requests
    return result


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
    return order if repeat % 2 == 0 else order[::-1]


def main():
    runs = {}  # (case, connections) -> {"keeper": [...], "baseline": [...]}
    for case in CASES:
        if PLAIN_OF.get(case) in CASES:
            continue  # runs with its plain case
        for connections in CONNECTIONS:
            for repeat in range(REPEATS):
                for target, which in run_order(case, repeat):
                    r = wrk(which, TARGETS[target], connections)
                    runs.setdefault((which, connections), {"keeper": [], "baseline": []})[target].append(r)
                    print(f"  {which:4} c={connections:<4} #{repeat + 1} {target:9} {r['rps']:9.0f} req/s  "
                          f"p50 {r['p50']:6.2f} ms  p99 {r['p99']:7.2f} ms  errors {r['errors']}  non-2xx {r['non2xx']}",
                          file=sys.stderr, flush=True)
            if (KEYED_OF.get(case), connections) in runs:
                runs[(KEYED_OF[case], connections)]["baseline"] = runs[(case, connections)]["baseline"]
    report(runs)


def median(values):
    return statistics.median(values) if values else float("nan")


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
    for case in CASES:
        print(f"  {case}: {CASE_TEXT[case]}")
    summary += keyed_cost(runs)
    memory = worker_memory()
    print(f"keeper worker private memory after the run (KiB): {' '.join(str(v) for v in memory) or '?'}")
    with open(f"{STATE}/bench/results.json", "w") as f:
        json.dump({f"{c}@{n}": v for (c, n), v in runs.items()}, f, indent=1)
    print(f"BENCH {' '.join(summary)} errors={worst['errors']} non2xx={worst['non2xx']} "
          f"max_worker_private_kib={max(memory) if memory else '?'}")


def keyed_cost(runs):
    """A keyed case against its plain one: the median of the per-repeat ratios of keeper's two
    adjacent runs (see KEYED_OF). Printed, and for BENCH."""
    out = []
    for (keyed, connections) in runs:
        plain = PLAIN_OF.get(keyed)
        if (plain, connections) not in runs:
            continue
        cost = median([k["rps"] / p["rps"] for k, p in zip(runs[(keyed, connections)]["keeper"],
                                                           runs[(plain, connections)]["keeper"])])
        print(f"  with a key, {plain} at {connections} connections runs at {cost:.2f}x of its speed without one")
        out.append(f"{keyed}/{plain}@{connections}={cost:.2f}x")
    return out


def worker_memory():
    """Private (clean + dirty) KiB of each keeper worker process, from smaps_rollup."""
    try:
        with open(PIDS["keeper"]) as f:
            root = int(f.readline())
    except (OSError, ValueError):
        return []
    sizes = []
    for pid in tree(root)[1:]:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                text = f.read()
            sizes.append(sum(int(v) for v in re.findall(r"^Private_(?:Clean|Dirty):\s+(\d+) kB", text, re.M)))
        except OSError:
            pass
    return sizes


if __name__ == "__main__":
    main()
