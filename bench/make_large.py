"""Grows a bench database to production size: scripts/bench runs it for its large stack.

    BENCH_STATE=<state dir> BENCH_PSQL="<psql command, as the database owner>" python3 make_large.py

On top of the small bench's data (bench/make_load.py: logins bench1..bench1000 with sessions,
purses and cards) it adds, in SQL run inside the database (generate_series, no client round trips):
- logins and one session each up to BENCH_LARGE_LOGINS (default 1 000 000), each with a purse
  and a card; their secrets are sealed afterwards by `keeperctl rotate-key` (scripts/bench);
- a month of top-ups (BENCH_LARGE_TOPUPS, default 3 000 000) over the last 30 days, the last
  day's also in card_recent_topups, as keeper_topup writes them;
- BENCH_LARGE_AUDIT_ROWS audit rows (default 50 000 000) spread evenly over the current month so
  far and the two months before it, each month in its own partition (made here if missing).
Request ids have the shape BENCH_REQUEST_IDS says: "time" (default; keeper's, the time in
milliseconds and random hex: nginx/keeper-request-id.conf) or "random" (32 random hex digits, as
nginx's plain $request_id), so the cost of each can be measured on the same data.
Rows go in chunks of CHUNK in their own transactions, two at a time (this machine has two cores).
Bounded: it refuses to start without DISK_FACTOR bytes per audit row free, and it prints what it
made, how long each step took and the size of every table and index it grew.
"""
import os
import shlex
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import measure

STATE = os.environ["BENCH_STATE"]
PSQL = shlex.split(os.environ["BENCH_PSQL"])
LOGINS = int(os.environ.get("BENCH_LARGE_LOGINS", "1000000"))
TOPUPS = int(os.environ.get("BENCH_LARGE_TOPUPS", "3000000"))
AUDIT_ROWS = int(os.environ.get("BENCH_LARGE_AUDIT_ROWS", "50000000"))
REQUEST_IDS = os.environ.get("BENCH_REQUEST_IDS", "time")
CHUNK = 2_000_000
PARALLEL = 2
DISK_FACTOR = 400  # bytes per audit row, heap and indexes and WAL, with room to spare (measured ~260)
SMALL_USERS = 1000  # made by make_load.py

if REQUEST_IDS not in ("time", "random"):
    sys.exit("BENCH_REQUEST_IDS is time or random")


def request_id(at_sql, salt_sql):
    """SQL for a request id of the chosen shape, for a row at time at_sql."""
    if REQUEST_IDS == "random":
        return f"md5({salt_sql}::text || random()::text)"
    return measure.time_ordered_id(at_sql, salt_sql)


def psql(sql):
    subprocess.run(PSQL + ["-q", "-v", "ON_ERROR_STOP=1", "-c", "SET synchronous_commit = off", "-c", sql],
                   check=True, stdout=subprocess.DEVNULL)


def step(name, statements, in_order=False):
    """Runs statements (each its own transaction), PARALLEL at a time, and says how long it took.
    in_order: statements is a list of lists; each inner list runs one statement after another."""
    started = time.monotonic()
    with ThreadPoolExecutor(PARALLEL) as pool:
        if in_order:
            list(pool.map(lambda group: [psql(s) for s in group], statements))
        else:
            list(pool.map(psql, statements))
    print(f"  {name}: {time.monotonic() - started:.0f} s", flush=True)


def chunks(first, last):
    """[first, last] in CHUNK-sized (lo, hi) ranges."""
    return [(lo, min(lo + CHUNK - 1, last)) for lo in range(first, last + 1, CHUNK)]


def people():
    make = lambda lo, hi: f"""
INSERT INTO logins (login, shared_secret) SELECT 'bench' || i, 'secret' || i FROM generate_series({lo}, {hi}) i;
INSERT INTO sessions (session_hash, login_id, authenticated_at)
  SELECT keeper_session_hash('bench-session-' || i), l.id, now() FROM generate_series({lo}, {hi}) i JOIN logins l ON l.login = 'bench' || i;
INSERT INTO purses (purse, login_id) SELECT 'Z' || lpad(i::text, 12, '0'), l.id
  FROM generate_series({lo}, {hi}) i JOIN logins l ON l.login = 'bench' || i;
INSERT INTO cards (id, login_id) SELECT i, l.id FROM generate_series({lo}, {hi}) i JOIN logins l ON l.login = 'bench' || i;
"""
    step(f"{LOGINS - SMALL_USERS} logins with a session, a purse and a card",
         [make(lo, hi) for lo, hi in chunks(SMALL_USERS + 1, LOGINS)])


def partitions():
    """The two months before this one, for audit_log and topups (pg_partman made this month's)."""
    for parent in ("audit_log", "topups"):
        psql(f"SELECT partman.create_partition_time(current_schema() || '.{parent}', "
             "ARRAY[date_trunc('month', now()) - interval '2 months', date_trunc('month', now()) - interval '1 month'])")


def topups():
    # Spread over the last 30 days; a random card, its own purse, 0.01-9.99.
    at = "now() - interval '30 days' * (1 - i::float8 / {n})"
    make = lambda lo, hi: f"""
INSERT INTO topups (card_id, purse, amount, created_at, request_id)
SELECT c, 'Z' || lpad(c::text, 12, '0'), (1 + floor(random() * 999)) / 100, t, {request_id('t', 'i')}
  FROM (SELECT i, 1 + floor(random() * {LOGINS})::bigint AS c, {at.format(n=TOPUPS)} AS t
          FROM generate_series({lo}, {hi}) i) s;
"""
    step(f"{TOPUPS} top-ups over 30 days", [make(lo, hi) for lo, hi in chunks(1, TOPUPS)])
    psql("INSERT INTO card_recent_topups (card_id, created_at, amount) "
         "SELECT card_id, created_at, amount FROM topups WHERE created_at > now() - interval '24 hours'")


def audit_rows():
    """AUDIT_ROWS rows, a third in each of the three months, evenly in time within each: from the
    month's start to its end (the current one: to now). Each month's chunks go in time order, one
    after another, as calls would add them: two writers into one month would each split pages in
    the middle of its time-ordered indexes and leave them half full, which production never does.
    The months go two at a time."""
    per_month = AUDIT_ROWS // 3
    months = []
    for back in (2, 1, 0):
        start = f"(date_trunc('month', now()) - interval '{back} months')"
        end = "now()" if back == 0 else f"(date_trunc('month', now()) - interval '{back - 1} months')"
        statements = []
        for lo, hi in chunks(1, per_month):
            at = f"{start} + ({end} - {start}) * (i::float8 / {per_month})"
            statements.append(f"""
INSERT INTO audit_log (at, login_id, app_id, operation, result, request_id)
SELECT t, 1 + floor(random() * {LOGINS})::bigint, NULL,
       (ARRAY['SetAccountPermits', 'TopupPurseFromAtmCard', 'Authenticate', 'CheckSessionEx',
              'SubscribeWithTagAndLocale', 'RenameTelepayProfile'])[1 + floor(random() * 6)::int],
       CASE WHEN random() < 0.95 THEN 0 ELSE 5 END, {request_id('t', 'i')}
  FROM (SELECT i, {at} AS t FROM generate_series({lo}, {hi}) i) s;
""")
        months.append(statements)
    step(f"{per_month * 3} audit rows over three months", months, in_order=True)


def sizes():
    print("  sizes (rows; heap and each index, MB):")
    made = ("c.relname ~ '^(audit_log|topups)_p' OR "
            "c.relname IN ('logins', 'sessions', 'purses', 'cards', 'card_recent_topups')")
    for name, tuples, heap, indexes in measure.relation_sizes(PSQL, made):
        if int(tuples) > 0:
            print(f"    {name:28} {int(tuples):>12,} rows  heap {heap:>6}  {indexes}")


def main():
    free = shutil.disk_usage(STATE).free
    if free < AUDIT_ROWS * DISK_FACTOR:
        sys.exit(f"{AUDIT_ROWS:,} audit rows need about {AUDIT_ROWS * DISK_FACTOR >> 30} GiB free; {free >> 30} GiB is")
    started = time.monotonic()
    print(f"growing the database: {LOGINS:,} logins, {TOPUPS:,} top-ups, {AUDIT_ROWS:,} audit rows, "
          f"{REQUEST_IDS} request ids", flush=True)
    people()
    partitions()
    topups()
    audit_rows()
    step("VACUUM ANALYZE (what autovacuum does for insert-only tables)",
         ["VACUUM (ANALYZE) audit_log", "VACUUM (ANALYZE) topups", "VACUUM (ANALYZE) logins, sessions, purses, cards"])
    sizes()
    print(f"  made in {time.monotonic() - started:.0f} s", flush=True)


if __name__ == "__main__":
    main()
