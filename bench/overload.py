"""scripts/bench's overload cases (BENCH_OVERLOAD=1): R2 and R3 at their peak concurrency, then
at 16x and 64x of it, against keeper and the baseline. Per run: goodput (answers 200 per second)
as a ratio of the same target's goodput at the peak, the p50 and p99 of the calls answered 200
and the p99 of the refusals (from nginx's access log: the server's side, not wrk's, whose latency
mixes the two; beside them "p99 clnt", every answer's p99 as the clients timed it, which counts a
wait in a socket before nginx reads the request; again past the run's first two seconds; then from keeper's log, the time from nginx's first look at a refusal to its answer
("nginx→") and the worker's own share of it, from reading it to its answer), the answers by kind,
and the CPU per answer.

Answers by kind: `ok` (200), `not_applied` (a refusal that says nothing was changed and carries
Retry-After: 503, or SOAP's 500 server fault with the header), `unknown` (a fault that says the
outcome is unknown), `other` (any other status), `closed` (wrk's socket errors: a connection
closed or reset without an answer, or no answer within wrk's timeout).

Each run starts from the same cards' history: the last day's top-ups (card_recent_topups, which
R3's 24-hour limit sums) are emptied before it. The bench's 1000 cards take thousands of top-ups a
minute, so without it each run's sums read more rows than the run before (a real card takes a few
a day), and the overloaded runs, which come last, would pay for the earlier runs' rows: R3's
keeper at 32 connections fell from 3 861 to 3 293 calls a second after the runs at 512 and 2048.

BENCH_CRASH=1 kills one of keeper's workers (kill -9) halfway through each of keeper's runs: nginx
sends each call that worker held again, to the retry socket, where the others take it before any
first attempt and never refuse it (docs/design.md, "Overload"); the runs then say how many came
so ("retried") and what the crash cost the calls around it.

Clients as the contract asks (BENCH_CLIENTS=polite, the default) wait the Retry-After of a
refusal before their next call; BENCH_CLIENTS=storm ignores it, as a retry storm would. wrk's
Lua cannot tie a delay to the connection that got the refusal within a thread, so polite runs give
each connection a wrk thread of its own (and its own Lua state): each refused connection waits its
Retry-After, as a client that keeps its connection does.
"""
import json
import os
import re
import resource
import shlex
import subprocess
import sys
import time

import measure

STATE = os.environ["BENCH_STATE"]
DURATION = int(os.environ.get("BENCH_SECONDS", "10"))
REPEATS = int(os.environ.get("BENCH_REPEATS", "1"))
PEAK = int(os.environ.get("BENCH_PEAK_CONNECTIONS", "32"))
FACTORS = [1, 16, 64]
CASES = re.split(r"[\s,]+", os.environ.get("BENCH_CASES", "R2 R3").strip())
CLIENTS = os.environ.get("BENCH_CLIENTS", "polite")
CRASH = os.environ.get("BENCH_CRASH") == "1"
TARGETS = {"keeper": int(os.environ["BENCH_KEEPER_PORT"]), "baseline": int(os.environ["BENCH_BASELINE_PORT"])}
KEEPER_LOG = f"{STATE}/log/keeper.log"
# wrk opens every connection at once and each sends at once: a run's first two seconds are that
# burst and its echo (polite clients come back together after Retry-After's second). The
# refusals' p99 is also given without them ("after 2s"), the overload as it goes on.
SETTLING_MS = 2000
PSQL = shlex.split(os.environ["BENCH_PSQL"])  # as the database's owner (scripts/bench)
ACCESS_LOGS = {"keeper": f"{STATE}/log/nginx-access.log", "baseline": f"{STATE}/log/nginx-baseline-access.log"}
PIDS = {
    "nginx": f"{STATE}/nginx/nginx.pid",
    "keeper": f"{STATE}/run/keeper.pid",
    "baseline": f"{STATE}/run/baseline.pid",
    "postgres": f"{STATE}/pg/postmaster.pid",
}

KINDS = ("ok", "not_applied", "unknown", "other")
LUA = r"""
dofile("%(case_script)s")
local polite = %(polite)s
local counts = {ok = 0, not_applied = 0, unknown = 0, other = 0}
local pauses = {}
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function response(status, headers, body)
  local retry_after = headers["Retry-After"] or headers["retry-after"]
  if status == 200 then
    counts.ok = counts.ok + 1
  elseif retry_after and (status == 503 or body:find("not applied", 1, true)) then
    counts.not_applied = counts.not_applied + 1
    if polite then table.insert(pauses, tonumber(retry_after) * 1000) end
  elseif body:find("unknown", 1, true) then
    counts.unknown = counts.unknown + 1
  else
    counts.other = counts.other + 1
  end
  ok, not_applied, unknown, other = counts.ok, counts.not_applied, counts.unknown, counts.other
end

function delay()
  if #pauses > 0 then return table.remove(pauses, 1) end
  return 0
end

function done(summary, latency, requests)
  local total = {ok = 0, not_applied = 0, unknown = 0, other = 0}
  for _, t in ipairs(threads) do
    for k, _ in pairs(total) do total[k] = total[k] + (t:get(k) or 0) end
  end
  local e = summary.errors
  io.write(string.format("KINDS ok=%%d not_applied=%%d unknown=%%d other=%%d closed=%%d\n", total.ok, total.not_applied,
                         total.unknown, total.other, e.connect + e.read + e.write + e.timeout))
end
"""


def script_for(case):
    path = f"{STATE}/bench/overload-{case}-{CLIENTS}.lua"
    with open(path, "w") as f:
        f.write(LUA % {"case_script": f"{STATE}/bench/{case}.lua", "polite": "true" if CLIENTS == "polite" else "false"})
    return path


def latencies(log, offset, settled_ms):
    """request_time in ms of every answer in the access log past offset: (200s, refusals, the
    refusals of requests nginx began after settled_ms, by their request id's time). A refusal is a
    503, or SOAP's 500 server fault (the bench's calls meet no other fault: wrk's kinds say so)."""
    ok, shed, settled = [], [], []
    with open(log) as f:
        f.seek(offset)
        for line in f:
            m = re.search(r'" (\d{3}) .*?request_id=(\d{13})?\S* .*request_time=([\d.]+)', line)
            if m and m.group(1) == "200":
                ok.append(float(m.group(3)) * 1000)
            elif m and m.group(1) in ("500", "503"):
                shed.append(float(m.group(3)) * 1000)
                if m.group(2) and int(m.group(2)) >= settled_ms:
                    settled.append(shed[-1])
    return sorted(ok), sorted(shed), sorted(settled)


def refusal_durations(log, offset):
    """Two times of every refusal in keeper's log past offset: its duration_ms, the worker's own
    share, from reading it to its answer; and the ms from nginx's first look at it (its request
    id's time) to the answer, the wait for a worker to read it included."""
    inside, since_nginx = [], []
    with open(log, errors="replace") as f:
        f.seek(offset)
        for line in f:
            if "refused on arrival" in line:
                m = re.search(r"duration_ms=([\d.]+)", line)
                if m:
                    inside.append(float(m.group(1)))
                m = re.search(r"; (\d+) ms after nginx first saw it", line)
                if m:
                    since_nginx.append(float(m.group(1)))
    return sorted(inside), sorted(since_nginx)


def percentile(values, p):
    return values[min(len(values) - 1, int(len(values) * p))] if values else float("nan")


def retried_calls(log, offset):
    """The calls keeper's log past offset names as come on the retry socket."""
    with open(log, errors="replace") as f:
        f.seek(offset)
        return sum(1 for line in f if " retried=true" in line)


def wrk_with_a_crash(args):
    """wrk's output, with one of keeper's workers killed halfway through the run."""
    with subprocess.Popen(args, stdout=subprocess.PIPE, text=True) as wrk:
        time.sleep(DURATION / 2)
        with open(PIDS["keeper"]) as f:
            pool = int(f.read())
        with open(f"/proc/{pool}/task/{pool}/children") as f:
            os.kill(int(f.read().split()[0]), 9)
        out = wrk.communicate()[0]
    if wrk.returncode:
        raise subprocess.CalledProcessError(wrk.returncode, args)
    return out


def forget_recent_topups():
    subprocess.run([*PSQL, "-qc", "TRUNCATE card_recent_topups"], check=True,
                   capture_output=True)


def client_p99(wrk_output):
    """The p99 of every answer as the clients timed it (wrk's --latency distribution): from the
    request's write to its answer, so a wait in a socket before nginx reads it counts, which
    nginx's log cannot see."""
    found = re.search(r"^\s*99%\s+([\d.]+)(us|ms|s)\s*$", wrk_output, re.M)
    if not found:
        return float("nan")
    return float(found.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[found.group(2)]


def wrk_threads(connections):
    """Polite clients each wait on the connection that was refused, as the contract asks: wrk's Lua
    state is its thread's, and its callbacks do not say which connection they are for, so a
    polite run gives each connection a thread of its own. A storm needs no such tie: 2 threads."""
    return connections if CLIENTS == "polite" else 2


def run(case, target, connections):
    forget_recent_topups()
    log = ACCESS_LOGS[target]
    offset = os.path.getsize(log) if os.path.exists(log) else 0
    keeper_offset = os.path.getsize(KEEPER_LOG) if os.path.exists(KEEPER_LOG) else 0
    args = [*measure.WRK, "-t", str(wrk_threads(connections)), "-c", str(connections), "-d", f"{DURATION}s", "--latency", "--timeout", "10s", "-s", script_for(case),
            f"http://127.0.0.1:{TARGETS[target]}"]
    before = measure.cpu_ticks(PIDS)
    settled_ms = int(time.time() * 1000) + SETTLING_MS
    if CRASH and target == "keeper":
        out = wrk_with_a_crash(args)
    else:
        out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    after = measure.cpu_ticks(PIDS)
    kinds = dict((k, int(v)) for k, v in re.findall(r"(\w+)=(\d+)", re.search(r"^KINDS (.*)$", out, re.M).group(1)))
    ok, shed, settled = latencies(log, offset, settled_ms)
    inside, since_nginx = refusal_durations(KEEPER_LOG, keeper_offset) if target == "keeper" else ([], [])
    result = {"case": case, "target": target, "connections": connections, "clients": CLIENTS, **kinds,
              "goodput": kinds["ok"] / DURATION, "p50_ok": percentile(ok, 0.5), "p99_ok": percentile(ok, 0.99),
              "p99_client": client_p99(out),
              "p99_shed": percentile(shed, 0.99), "p99_shed_settled": percentile(settled, 0.99),
              "p99_shed_worker": percentile(inside, 0.99), "p99_shed_since_nginx": percentile(since_nginx, 0.99),
              "retried": retried_calls(KEEPER_LOG, keeper_offset) if target == "keeper" else 0}
    answers = max(sum(kinds[k] for k in KINDS), 1)
    for name in PIDS:
        if name in before and name in after:
            result[f"cpu_{name}"] = (after[name] - before[name]) * 1e6 / measure.TICK / answers
    return result


def line(r):
    cpu = "|".join(f"{r.get('cpu_' + n, 0):.0f}" for n in (r["target"], "nginx", "postgres"))
    return (f"{r['case']:5} {r['target']:8} {r['connections']:>5} {r['goodput']:>7.0f} {r['ratio']:>5.2f}x "
            f"{r['p50_ok']:>6.0f}ms {r['p99_ok']:>6.0f}ms {r['p99_client']:>7.0f}ms {r['p99_shed']:>6.0f}ms {r['p99_shed_settled']:>6.0f}ms "
            f"{r['p99_shed_since_nginx']:>5.0f}ms {r['p99_shed_worker']:>5.1f}ms {r['ok']:>7} {r['not_applied']:>7} "
            f"{r['unknown']:>7} {r['other']:>6} {r['closed']:>6} {cpu:>22} {r['retried']:>7}")


def median_of(runs):
    """One row for a point's repeats: the median of each figure (the ratio's median is of the
    per-repeat ratios, each against the same repeat's peak)."""
    out = dict(runs[0])
    for k, v in runs[0].items():
        if isinstance(v, (int, float)) and not isinstance(v, bool) and k != "connections":
            values = sorted(r[k] for r in runs)
            out[k] = values[len(values) // 2]
    return out


def main():
    # wrk holds a descriptor per connection: 2048 of them at 64x.
    resource.setrlimit(resource.RLIMIT_NOFILE, (16384, 16384))
    results = []
    print(f"overload: {', '.join(CASES)}, {DURATION} s a run, {REPEATS} repeat(s), clients {CLIENTS}"
          f"{', a worker of keeper killed halfway' if CRASH else ''}; goodput ÷ the same "
          f"target's at {PEAK} in the same repeat; with repeats, each figure is the median")
    header = (f"{'case':5} {'target':8} {'conns':>5} {'ok/s':>7} {'÷peak':>6} {'p50 ok':>8} {'p99 ok':>8} {'p99 clnt':>9} {'p99 shed':>8} "
              f"{'after 2s':>8} {'nginx→':>7} {'in wkr':>7} {'ok':>7} {'n/appl':>7} {'unknown':>7} {'other':>6} {'closed':>6} "
              f"{'cpu µs/answer k|n|pg':>22} {'retried':>7}")
    print(header)
    summary = []
    for case in CASES:
        for target in TARGETS:
            by_factor = {f: [] for f in FACTORS}
            for repeat in range(REPEATS):
                peak = None
                for factor in FACTORS:
                    r = run(case, target, PEAK * factor)
                    peak = peak or r["goodput"]
                    r["ratio"] = r["goodput"] / peak if peak else float("nan")
                    r["repeat"] = repeat + 1
                    results.append(r)
                    by_factor[factor].append(r)
                    if REPEATS > 1:
                        print(f"  #{repeat + 1} " + line(r), file=sys.stderr, flush=True)
            for factor in FACTORS:
                summary.append(median_of(by_factor[factor]))
                print(line(summary[-1]), flush=True)
    with open(f"{STATE}/bench/overload-{CLIENTS}.json", "w") as f:
        json.dump(results, f, indent=1)
    worst = min((r["ratio"] for r in summary if r["target"] == "keeper"), default=float("nan"))
    print(f"OVERLOAD clients={CLIENTS} keeper_worst_goodput_ratio={worst:.2f} "
          f"keeper_worst_client_p99_ms={max((r['p99_client'] for r in summary if r['target'] == 'keeper'), default=float('nan')):.0f} "
          f"keeper_unknown={sum(r['unknown'] for r in results if r['target'] == 'keeper')} "
          f"keeper_closed={sum(r['closed'] for r in results if r['target'] == 'keeper')}")


if __name__ == "__main__":
    sys.exit(main())
