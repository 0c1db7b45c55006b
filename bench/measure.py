"""What scripts/bench's runners and data makers share: one wrk run against a port, with the CPU
each process tree spent per request (from /proc), the median they report, keeper's request id as
SQL, and the sizes of tables and their indexes.
"""
import os
import re
import statistics
import subprocess

TICK = os.sysconf("SC_CLK_TCK")


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


def cpu_ticks(pid_files):
    """utime + stime of every process tree (name -> pid file of its root), in clock ticks; the
    root's exited children included (cutime)."""
    totals = {}
    for name, pid_file in pid_files.items():
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
                if pid == root:
                    total += int(fields[13]) + int(fields[14])  # cutime, cstime: children that exited
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


# BENCH_LOAD_CPUS (scripts/bench): wrk runs on these CPUs alone, the stack on the others, as a
# load generator on a machine of its own would leave the stack its cores.
WRK = (["taskset", "-c", os.environ["BENCH_LOAD_CPUS"]] if os.environ.get("BENCH_LOAD_CPUS") else []) + ["wrk"]


def wrk(url, script, connections, seconds, pid_files):
    """One wrk run (2 threads) against url, with script (a Lua file) or a plain GET: req/s, request
    count, p50/p99 ms, socket errors, non-2xx answers, and cpu_<name> µs per request for each tree."""
    args = [*WRK, "-t", "2", "-c", str(connections), "-d", f"{seconds}s", "--latency", "--timeout", "5s"]
    if script:
        args += ["-s", script]
    before = cpu_ticks(pid_files)
    out = subprocess.run(args + [url], capture_output=True, text=True, check=True).stdout
    after = cpu_ticks(pid_files)
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
    for name in pid_files:
        if name in before and name in after:
            result[f"cpu_{name}"] = (after[name] - before[name]) * 1e6 / TICK / requests
    return result


def median(values):
    return statistics.median(values) if values else float("nan")


def time_ordered_id(at_sql, salt_sql="''"):
    """SQL for a request id of keeper's shape for a call at at_sql: its time in milliseconds (13
    digits) and 19 random hex digits (nginx/keeper-request-id.conf)."""
    return (f"lpad((extract(epoch FROM {at_sql}) * 1000)::bigint::text, 13, '0') || "
            f"substr(md5({salt_sql}::text || random()::text), 1, 19)")


def relation_sizes(psql, names_sql):
    """(name, rows, heap MB, "index MB, ...") of the tables of this schema whose names names_sql
    (an SQL condition on c.relname) picks, by name."""
    out = subprocess.run(psql + ["-qtAX", "-c", f"""
SELECT c.relname, c.reltuples::bigint, pg_relation_size(c.oid) / 1048576,
       string_agg(i.relname || ' ' || pg_relation_size(i.oid) / 1048576, ', ' ORDER BY i.relname)
  FROM pg_class c LEFT JOIN pg_index x ON x.indrelid = c.oid LEFT JOIN pg_class i ON i.oid = x.indexrelid
 WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace AND ({names_sql})
 GROUP BY c.relname, c.reltuples, c.oid ORDER BY c.relname"""], capture_output=True, text=True, check=True).stdout
    return [line.split("|") for line in out.strip().splitlines()]
