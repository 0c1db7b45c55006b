"""Chaos under load, against a stack of its own (under_load_test.sh starts it).

A load generator writes while something breaks, and records every acknowledgement: top-ups of
one card with amounts no other request uses, and contact permits with wmids no other request
uses. After each scenario every acknowledged write must be in the database exactly once, no
write may be there twice, the pool must be whole again, and the failures and the recovery time
must stay within the bounds docs/operations.md states. Scenarios: kill -9 of workers; PostgreSQL
restarted fast and immediate; every worker's database connection ended mid-call, 20 times;
PostgreSQL stopped for 20 s; the pool and nginx reloaded; a card's row held locked for 15 s by
another database session while other calls go on; and all of these at once under a client that
repeats each top-up with its Idempotency-Key until answered, which must see each exactly once;
the synchronous standby stalled, alone and under more clients than the pool has threads.

Bounded: about three and a half minutes. Prints a table (scenario, requests, failed, lost, recovery).
"""
import http.client
import itertools
import os
import shlex
import signal
import subprocess
import threading
import time
import unittest

import private_stack  # the one starter of a test's processes (scripts/lib)
from harness import keeper_stack, wait, web
from harness.auth import auth_hash
from harness.keeper_stack import RetryingWriters, Writers, call_outcome, look_at_call
from harness.test_stack import DATABASE_URL, PORT, STATE, sql

POOL_PID = int(os.environ["KEEPER_TEST_POOL_PID"])
POOL_WORKERS = 4  # scripts/test starts the pool with 4 workers
POOL_THREADS = 24  # each with the default number of threads
PG_CTL = f"{private_stack.pg_bin()}/pg_ctl"
THREADS = 6
RESULTS = []  # (scenario, requests, failed, lost, recovery) for the table
keeper_stack.front = ("127.0.0.1", PORT)  # the writers' way to keeper: the test stack's nginx


def as_keeper(*cmd):
    return private_stack.run(private_stack.as_user(cmd), cwd=STATE)


def workers():
    with open(f"/proc/{POOL_PID}/task/{POOL_PID}/children") as f:
        return [int(p) for p in f.read().split()]


def retried_log_lines():
    """How many requests the workers logged as come on the retry socket (retried=true)."""
    with open(f"{STATE}/log/keeper.log", encoding="utf-8", errors="replace") as f:
        return sum(1 for line in f if " retried=true" in line)


def metric(series):
    """The value of one series of /metrics (0 when absent)."""
    lines = web.call(PORT, "/metrics", timeout=10)[2].decode().splitlines()
    return next((float(line.split()[-1]) for line in lines if line.startswith(series + " ")), 0.0)


def lock_row(purse, seconds):
    """A psql that holds purse's row locked for `seconds`, returned once it holds it (close its
    stdin and wait for it)."""
    holder = subprocess.Popen(["psql", DATABASE_URL, "-XAtq"], stdin=subprocess.PIPE, text=True)
    holder.stdin.write(f"BEGIN; SELECT 1 FROM purses WHERE purse = '{purse}' FOR UPDATE; SELECT pg_sleep({seconds}); COMMIT;\n")
    holder.stdin.flush()
    held = f"SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep({seconds})%'"
    assert wait.until(lambda: sql(held) == "1", 10), "psql did not lock the row"
    return holder


class Load(Writers):
    """Writers as one scenario's login, until stopped (tests/harness/keeper_stack.py): every write
    unique, every answer recorded. No call of a scenario may end "outcome unknown": check()
    compares the count after it with the one before."""

    def __init__(self, who, card=None):
        super().__init__(THREADS, who=(who.session, who.purse, card or who.card), resend_on_close=True)
        self.outcome_unknown_before = metric("keeper_database_outcome_unknown_total")

    def keys(self, calls, kind, result=None):
        return [c[1] for c in calls if c[0] == kind and (result is None or c[5] == result)]

    @property
    def failures(self):
        return len(self.failed())

    @property
    def fault_seconds(self):
        """How long each failed call took."""
        return [c[3] - c[2] for c in self.failed()]

    @property
    def success_times(self):
        return sorted(c[3] for c in self.acked())


class Who:
    """A login with a session, two purses and two cards with no practical daily limit, for one scenario."""
    ids = itertools.count(1)

    def __init__(self):
        n = (os.getpid() % 1000) * 100 + next(self.ids)
        self.login, self.secret, self.session = f"chaos{n}", f"chaos-secret-{n}", f"chaos-session-{n}"
        self.purse, self.card, self.card2 = f"Z{800000000000 + n}", 800000 + n * 2, 800001 + n * 2
        self.purse2 = f"Y{800000000000 + n}"
        sql(f"INSERT INTO logins (login, shared_secret) VALUES ('{self.login}', '{self.secret}')")
        for purse in (self.purse, self.purse2):
            sql(f"INSERT INTO purses (purse, login_id) SELECT '{purse}', id FROM logins WHERE login = '{self.login}'")
        for card in (self.card, self.card2):
            sql(f"INSERT INTO cards (id, login_id, daily_limit) SELECT {card}, id, 999999999 FROM logins WHERE login = '{self.login}'")
        h = auth_hash(self.login, self.secret, self.session)
        c = http.client.HTTPConnection("127.0.0.1", PORT, timeout=10)
        c.request("GET", f"/SimpleAuthApi.asmx/Authenticate?sessionId={self.session}&login={self.login}&authHash={h}")
        assert c.getresponse().read().rstrip().endswith(b">0</int>")

    def topups(self, card):
        return sql(f"SELECT string_agg(amount::text, ' ') FROM topups WHERE card_id = {card}").split()

    def wmids(self):
        return sql(f"SELECT string_agg(wmid, ' ') FROM contact_permits c JOIN logins l ON l.id = c.login_id "
                   f"WHERE l.login = '{self.login}'").split()


class Chaos(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # The test cluster runs with synchronous_commit=off for speed; an acknowledgement must mean
        # a commit that survives PostgreSQL's crash here, as it does in production.
        sql("ALTER ROLE keeper_worker IN DATABASE keeper SET synchronous_commit = on")

    @classmethod
    def tearDownClass(cls):
        sql("ALTER ROLE keeper_worker IN DATABASE keeper RESET synchronous_commit")
        print("\nscenario                     requests  failed  lost  recovery")
        for row in RESULTS:
            print("%-28s %8d %7d %5d  %s" % row)

    def check(self, scenario, who, load, recovery, card=None, in_flight_unknown=0):
        """in_flight_unknown: how many calls may end "outcome unknown" (those in flight when the
        database went away for longer than the budget); 0 everywhere else."""
        card = card or who.card
        stored = who.topups(card)
        wmids = who.wmids()
        acked, failed = load.acked(), load.failed()
        lost = len(set(load.keys(acked, "topup")) - set(stored)) + len(set(load.keys(acked, "permit")) - set(wmids))
        RESULTS.append((scenario, len(load.calls), len(failed), lost, recovery))
        self.assertEqual(lost, 0, f"{scenario}: acknowledged writes missing")
        self.assertEqual(len(stored), len(set(stored)), f"{scenario}: a top-up applied twice")
        # A write whose client got a fault was not applied, unless the fault said its outcome was
        # unknown.
        unknown = metric("keeper_database_outcome_unknown_total") - load.outcome_unknown_before
        self.assertLessEqual(unknown, in_flight_unknown, f"{scenario}: calls answered 'outcome unknown'")
        applied_anyway = sorted(set(load.keys(failed, "topup")) & set(stored))
        self.assertLessEqual(len(applied_anyway), unknown, f"{scenario}: top-ups whose client got a fault were applied: {applied_anyway}")
        # Call by call: a write answered "not applied" is absent, whatever else happened.
        self.assertEqual(sorted(set(load.keys(failed, "topup", "not applied")) & set(stored)), [],
                         f"{scenario}: 'not applied' top-ups applied")
        self.assertEqual(sorted(set(load.keys(failed, "permit", "not applied")) & set(wmids)), [],
                         f"{scenario}: 'not applied' permits applied")
        self.assertTrue(wait.until(lambda: len(workers()) == POOL_WORKERS, 5), f"{scenario}: the pool is not whole: {workers()}")

    def recovery_text(self, load, up):
        """How long clients saw failures, and the first success once PostgreSQL was back."""
        failed = sorted(c[3] for c in load.failed())
        if not failed:
            return "no failure"
        back = [t for t in load.success_times if t >= up]
        if not back:
            return "never"
        return (f"failures over {failed[-1] - failed[0]:.2f} s, "
                f"first write {back[0] - up:.2f} s after it was back")

    def test_01_killed_workers_lose_nothing(self):
        who = Who()
        replaced = metric('keeper_worker_replacements_total{cause="signal"}')
        retried_before = retried_log_lines()
        kills = 0
        with Load(who) as load:
            time.sleep(1)
            # Three kills, and more (at most 10) until one has caught a call in hand: on a busy
            # machine the worker killed may be between calls.
            while kills < 3 or (retried_log_lines() == retried_before and kills < 10):
                os.kill(workers()[0], signal.SIGKILL)
                kills += 1
                time.sleep(1)
            time.sleep(1)
        self.check(f"kill -9 a worker, {kills} times", who, load, f"{max(load.fault_seconds, default=0):.2f} s slowest fault")
        # nginx sends each call a killed worker had in hand again, to the retry socket, where a write
        # first ends the attempt that holds its claim and answers what it recorded (docs/design.md,
        # "In-doubt calls"): no call fails.
        self.assertEqual(load.failures, 0, f"calls failed when workers were killed: {load.fault_seconds[:5]}")
        # ... and it did: calls the killed workers had in hand came again on the retry socket.
        self.assertTrue(wait.until(lambda: retried_log_lines() > retried_before, 5), "no call came on the retry socket")
        print(f"\nkill -9: {retried_log_lines() - retried_before} call(s) sent again on the retry socket", flush=True)
        # /metrics tells: a replacement for each kill, the pool whole again.
        self.assertEqual(metric('keeper_worker_replacements_total{cause="signal"}'), replaced + kills)
        self.assertTrue(wait.until(lambda: metric("keeper_workers_alive") == POOL_WORKERS, 5))
        self.assertEqual(metric("keeper_workers_configured"), POOL_WORKERS)

    def restart_postgres(self, mode, scenario):
        who = Who()
        lost = metric("keeper_database_connections_lost_total")
        with Load(who) as load:
            time.sleep(1)
            down = time.monotonic()
            as_keeper(PG_CTL, "-D", f"{STATE}/pg", "-l", f"{STATE}/log/postgres.log", "-m", mode, "-w", "restart")
            up = time.monotonic()
            time.sleep(3)
        self.check(scenario, who, load, self.recovery_text(load, up))
        back = [t for t in load.success_times if t >= up]
        self.assertTrue(back, "writes never came back")
        self.assertLess(back[0] - up, 3.0, "writes back within 3 s of the restart")
        # A restart is shorter than call_budget_ms: calls wait for it, and those it cut off are
        # settled by keeper itself (docs/design.md, "In-doubt calls"): none fails.
        self.assertEqual(load.failures, 0, f"calls failed in a restart shorter than the budget: {load.fault_seconds[:5]}")
        self.assertGreater(down, 0)
        self.assertGreater(metric("keeper_database_connections_lost_total"), lost, "/metrics saw connections lost")
        self.assertGreater(metric("keeper_database_connections_open"), 0)

    def test_02_postgres_restarted_fast(self):
        self.restart_postgres("fast", "PostgreSQL restart -m fast")

    def test_03_postgres_restarted_immediate(self):
        self.restart_postgres("immediate", "PostgreSQL restart -m immediate")

    def test_03a_worker_database_sessions_ended_mid_call(self):
        """Every worker's database connection ended (pg_terminate_backend), 20 times under load. A
        call cut off after its statement was sent is settled by keeper itself (docs/design.md,
        "In-doubt calls"): answered with its recorded result or run again, so none fails, none is
        lost, none is applied twice."""
        who = Who()
        before = metric("keeper_database_in_doubt_recorded_total") + metric("keeper_database_in_doubt_rerun_total")
        with Load(who) as load:
            time.sleep(1)
            for _ in range(20):
                sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'keeper_worker'")
                time.sleep(0.2)
            time.sleep(2)
        settled = metric("keeper_database_in_doubt_recorded_total") + metric("keeper_database_in_doubt_rerun_total") - before
        self.check("worker sessions ended x20", who, load, f"{settled:.0f} calls settled in doubt")
        self.assertGreater(settled, 0, "no call was cut off mid-call: the scenario proved nothing")
        self.assertEqual(load.failures, 0, f"calls failed: {load.fault_seconds[:5]}")
        self.assertEqual(metric("keeper_database_outcome_unknown_total"), 0)

    def test_04_postgres_down_for_20_seconds(self):
        with open(f"{STATE}/pg/postmaster.opts") as f:
            opts = shlex.split(f.read())[1:]
        who = Who()
        failures = metric("keeper_database_connect_failures_total")
        with Load(who) as load:
            time.sleep(1)
            private_stack.stop_postgres(f"{STATE}/pg")
            time.sleep(20)
            private_stack.start_postgres(f"{STATE}/pg", f"{STATE}/log/postgres.log", [shlex.join(opts[2:])])
            up = time.monotonic()
            time.sleep(3)
        # The calls in flight when PostgreSQL stopped cannot be settled before it is back, later
        # than their budget: at most one a client thread ends "outcome unknown".
        self.check("PostgreSQL down 20 s", who, load, self.recovery_text(load, up), in_flight_unknown=THREADS)
        # Longer than call_budget_ms (10 s): calls wait for the database, then fail once the budget is spent.
        self.assertGreater(load.failures, 0)
        median = sorted(load.fault_seconds)[len(load.fault_seconds) // 2]
        self.assertTrue(8.0 <= median <= 13.0, f"outage faults come once the 10 s budget is spent: median {median:.1f} s")
        back = [t for t in load.success_times if t >= up]
        self.assertTrue(back, "writes never came back")
        self.assertLess(back[0] - up, 3.0)
        self.assertGreater(metric("keeper_database_connect_failures_total"), failures, "/metrics saw the database gone")

    def test_05_reloads_fail_nothing(self):
        who = Who()
        with Load(who) as load:
            time.sleep(1)
            os.kill(POOL_PID, signal.SIGHUP)
            time.sleep(2)
            subprocess.run(["nginx", "-p", f"{STATE}/nginx", "-c", f"{STATE}/nginx/nginx.conf", "-e",
                            f"{STATE}/log/nginx-error.log", "-s", "reload"], check=True)
            time.sleep(2)
        self.check("pool and nginx reloaded", who, load, "no failure" if not load.failures else "-")
        self.assertEqual(load.failures, 0)

    def test_06_a_row_locked_for_15_seconds_stalls_only_its_own_calls(self):
        who = Who()
        # Top-ups of card2 into purse2, whose row is locked, from one thread; the load goes on the
        # other card and purse.
        locked = who.card2
        timeouts = metric("keeper_database_lock_timeouts_total")
        holder = lock_row(who.purse2, 15)
        db_free = []
        locked_calls = []
        conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
        with Load(who) as load:
            deadline = time.monotonic() + 12
            n = 0
            while time.monotonic() < deadline:
                started = time.monotonic()
                conn.request("GET", "/GlobalApi.asmx/GetUtcNow")
                conn.getresponse().read()
                db_free.append(time.monotonic() - started)
                if n % 20 == 0:
                    amount = f"7{n}.01"
                    started = time.monotonic()
                    conn.request("GET", f"/AccountApi.asmx/TopupPurseFromAtmCard?sessionId={who.session}"
                                        f"&purseDest={who.purse2}&cardId={locked}&amount={amount}")
                    r = conn.getresponse()
                    locked_calls.append((amount, r.status, time.monotonic() - started, r.read().decode()))
                n += 1
                time.sleep(0.01)
        holder.stdin.close()
        holder.wait(timeout=30)
        p99 = sorted(db_free)[int(len(db_free) * 0.99)]
        self.check("purse row locked 15 s", who, load, f"GetUtcNow p99 {p99 * 1000:.1f} ms")
        self.assertEqual(load.failures, 0, "calls on other rows keep succeeding")
        self.assertLess(p99, 0.25, "DB-free calls keep answering")
        self.assertTrue(locked_calls)
        for amount, status, took, body in locked_calls:
            self.assertEqual(status, 503, "a call on the locked row is refused as not applied")
            self.assertIn("was not applied", body, "... that says nothing was changed")
            self.assertLess(took, 3.5, "within lock_timeout (2 s) and a margin")
        stored = who.topups(locked)
        self.assertEqual(stored, [], "nothing committed for a call whose client got a fault")
        self.assertEqual(metric("keeper_database_lock_timeouts_total"), timeouts + len(locked_calls))

    def test_07_a_retrying_client_with_keys_tops_up_exactly_once(self):
        """Through worker kills, PostgreSQL restarted fast and immediate, the workers' database
        sessions ended, and PostgreSQL down for longer than call_budget_ms: a client that repeats
        each top-up with its Idempotency-Key until it has an answer sees every top-up applied
        exactly once: the purse holds the sum of its distinct top-ups, no row twice, none missing."""
        with open(f"{STATE}/pg/postmaster.opts") as f:
            opts = shlex.split(f.read())[1:]
        who = Who()
        with RetryingWriters(THREADS, who=(who.session, who.purse, who.card), prefix=f"chaos-{os.getpid()}-{who.card}") as client:
            time.sleep(1)
            for _ in range(2):
                os.kill(workers()[0], signal.SIGKILL)
                time.sleep(1)
            for mode in ("fast", "immediate"):
                as_keeper(PG_CTL, "-D", f"{STATE}/pg", "-l", f"{STATE}/log/postgres.log", "-m", mode, "-w", "restart")
                time.sleep(1)
            for _ in range(5):
                sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'keeper_worker'")
                time.sleep(0.2)
            as_keeper(PG_CTL, "-D", f"{STATE}/pg", "-m", "fast", "-w", "stop")
            time.sleep(12)  # past the 10 s budget: calls fail, and the client repeats them
            as_keeper(PG_CTL, "-D", f"{STATE}/pg", "-l", f"{STATE}/log/postgres.log", "-w", "-o", shlex.join(opts[2:]), "start")
            time.sleep(3)
        stored = who.topups(who.card)
        repeats = client.sends - len(client.intended)
        RESULTS.append(("retrying client with keys", client.sends, repeats, len(set(client.intended) - set(stored)),
                        f"{len(client.intended)} top-ups, {repeats} repeats, {client.replays} answered as replays"))
        self.assertEqual(client.unanswered(), [], "every top-up got its answer, and it was 0")
        self.assertGreater(repeats, 0, "the faults made the client repeat calls")
        self.assertEqual(sorted(stored), sorted(client.intended), "every top-up exactly once")
        balance = sql(f"SELECT balance FROM purses WHERE purse = '{who.purse}'")
        self.assertEqual(balance, f"{sum(int(a.replace('.', '')) for a in client.intended) / 100:.2f}")
        self.assertTrue(wait.until(lambda: len(workers()) == POOL_WORKERS, 5))

    def test_08_a_stalled_standby_gets_definite_answers_within_the_budget(self):
        """The synchronous standby stops answering (synchronous_standby_names names one that is
        absent, as when the only synchronous standby dies under synchronous_mode_strict): every
        commit waits for it. Each write is answered before the call's deadline, by keeper and not
        by nginx's timeout, and never "done" for a commit the standby lacks: an unkeyed and a keyed
        top-up, the keyed one's repeat, and a top-up whose worker is killed during the stall (nginx
        sends it again to the retry socket, where settling it makes its commit visible here first)
        all end "outcome unknown", naming their request id. The stall then ends as this stack
        allows (it has no standby): the absent standby is no longer named, so the commits that
        waited end. Each top-up is there once, and the keyed repeat is answered as a replay
        (docs/design.md, "One deadline per call", "No acknowledgement before replication"). A
        stall that ends with a real standby catching up is ha.failover's last step, on Patroni."""
        who, keyed_who = Who(), Who()
        unknown_before = metric("keeper_database_outcome_unknown_total")
        key = f"stall-{os.getpid()}-{keyed_who.card}"
        answers = {}

        def call(name, amount, headers=None, whose=who):
            """The keyed top-ups go to another login's purse and card: a top-up holds their locks
            until its commit ends, and a commit waiting for the standby has not ended."""
            conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=40)
            started = time.monotonic()
            conn.request("GET", f"/AccountApi.asmx/TopupPurseFromAtmCard?sessionId={whose.session}&purseDest={whose.purse}"
                                f"&cardId={whose.card}&amount={amount}", headers=headers or {})
            r = conn.getresponse()
            answers[name] = (r.status, r.read().decode(), time.monotonic() - started, r.getheader("X-Request-Id"),
                             r.getheader("Idempotent-Replayed"))

        def in_parallel(*calls):
            threads = [threading.Thread(target=call, args=c) for c in calls]
            for t in threads:
                t.start()
            return threads

        def stalled_commits():
            return int(sql("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'"))

        sql("ALTER SYSTEM SET synchronous_standby_names = 'keeper_absent_standby'")
        sql("SELECT pg_reload_conf()")
        time.sleep(1)  # the checkpointer reads it on its reload, and commits wait from then on
        try:
            for t in in_parallel(("unkeyed", "1.01"), ("keyed", "1.02", {"Idempotency-Key": key}, keyed_who)):
                t.join()
            call("keyed repeat", "1.02", {"Idempotency-Key": key}, keyed_who)
            killed = in_parallel(("worker killed", "1.03"))
            self.assertTrue(wait.until(lambda: stalled_commits() > 0, 5), "the top-up's commit waits for the standby")
            for pid in workers():
                os.kill(pid, signal.SIGKILL)
            killed[0].join()
            # The unkeyed top-up's commit stopped waiting at its cancel point: it is committed here
            # alone, visible, and not on the standby. A look at it must not say "recorded", which a
            # failover now would make untrue: "pending" until the standby has it.
            early, _ = look_at_call(answers["unkeyed"][3], who.session)
            self.assertEqual((early.get("session"), early.get("outcome")), (0, "pending"), early)
        finally:
            sql("ALTER SYSTEM RESET synchronous_standby_names")
            sql("SELECT pg_reload_conf()")
        for name, (status, body, took, request_id, _) in answers.items():
            with self.subTest(name):
                self.assertEqual(status, 500, body)
                self.assertIn("outcome of the call is unknown", body)
                self.assertIn(f"request id {request_id}", body)
                # Within call_budget_ms (10 s) from nginx's first send, the retried call's too (its
                # deadline is the first attempt's), and a margin for the worker's death.
                self.assertLess(took, 10.5 if name != "worker killed" else 15, f"{name} answered after {took:.1f} s")
        RESULTS.append(("synchronous standby stalled", len(answers), len(answers), 0,
                        ", ".join(f"{n} {a[2]:.1f} s" for n, a in answers.items())))
        self.assertEqual(metric("keeper_database_outcome_unknown_total") - unknown_before, len(answers))
        # The stall is over: what committed on the primary alone is kept, once each.
        self.assertTrue(wait.until(lambda: stalled_commits() == 0, 5))
        self.assertEqual(sorted(who.topups(who.card)), ["1.01", "1.03"])
        self.assertEqual(keyed_who.topups(keyed_who.card), ["1.02"])
        # Each "outcome unknown" resolves by its request id: the top-ups ran, once each; the keyed
        # repeat itself did nothing (its key's call is the one that ran).
        for name, expected in (("unkeyed", "recorded"), ("keyed", "recorded"), ("worker killed", "recorded"),
                               ("keyed repeat", "none")):
            with self.subTest(f"/call-outcome of {name}"):
                whose = keyed_who if name.startswith("keyed") else who
                answer = call_outcome(answers[name][3], whose.session)
                self.assertEqual((answer.get("session"), answer.get("outcome")), (0, expected), answer)
                if expected == "recorded":
                    self.assertEqual(answer["result"], 0, answer)
        call("keyed, stall over", "1.02", {"Idempotency-Key": key}, keyed_who)
        status, body, _, _, replayed = answers["keyed, stall over"]
        self.assertEqual((status, replayed), (200, "true"), body)
        self.assertTrue(body.rstrip().endswith(">0</int>"), body)
        self.assertTrue(wait.until(lambda: len(workers()) == POOL_WORKERS, 5))

    def test_09_keys_belong_to_their_proven_caller_and_overlapping_repeats_apply_once(self):
        """Through the running stack: a keyed top-up repeated after its client authenticated again
        (a new session id) is answered as a replay; a keyed Authenticate with a wrong hash leaves
        the key free for the right one; two overlapping calls with one key, the first still
        waiting for a lock, each get 409 or a replay, and the top-up is there once
        (docs/api-decisions.md, "Idempotency-Key")."""
        who = Who()

        def get(path, key):
            status, headers, body = web.call(PORT, path, headers={"Idempotency-Key": key}, timeout=30)
            body = body.decode()
            return status, body.rstrip().rsplit(">", 2)[-2].split("<")[0] if status == 200 else body, \
                headers.get("Idempotent-Replayed")

        def topup(session, amount, key):
            return get(f"/AccountApi.asmx/TopupPurseFromAtmCard?sessionId={session}&purseDest={who.purse}"
                       f"&cardId={who.card}&amount={amount}", key)

        def authenticate(session, secret, key):
            h = auth_hash(who.login, secret, session)
            return get(f"/SimpleAuthApi.asmx/Authenticate?sessionId={session}&login={who.login}&authHash={h}", key)

        base = f"edge-{os.getpid()}-{who.card}"
        self.assertEqual(topup(who.session, "3.01", f"{base}-a"), (200, "0", None))
        new_session = who.session + "-again"
        self.assertEqual(authenticate(new_session, who.secret, f"{base}-auth-0")[:2], (200, "0"))
        self.assertEqual(topup(new_session, "3.01", f"{base}-a"), (200, "0", "true"), "the repeat replays")

        self.assertEqual(authenticate(who.session, "not-the-secret", f"{base}-auth")[:2], (200, "4"))
        self.assertEqual(authenticate(who.session, who.secret, f"{base}-auth"), (200, "0", None),
                         "the failed attempt took no key")

        holder = lock_row(who.purse, 1.2)
        answers = []
        overlapping = [threading.Thread(target=lambda: answers.append(topup(who.session, "3.02", f"{base}-b")))
                       for _ in range(2)]
        for t in overlapping:
            t.start()
            time.sleep(0.1)
        for t in overlapping:
            t.join()
        holder.stdin.close()
        holder.wait(timeout=30)
        for status, result, replayed in answers:
            self.assertIn((status, replayed), [(200, None), (200, "true"), (409, None)], result)
        final = topup(who.session, "3.02", f"{base}-b")
        self.assertEqual(final, (200, "0", "true"), "once both ended, a repeat replays")
        self.assertEqual(sorted(who.topups(who.card)), ["3.01", "3.02"], "each top-up once")
        RESULTS.append(("keys: re-auth, failed auth, overlap", 8, 0, 0,
                        "overlapping answers " + ", ".join(f"{s} {r or ''}".strip() for s, _, r in answers)))

    def test_10_more_top_ups_than_threads_while_the_standby_stalls(self):
        """The synchronous standby stalls for longer than nginx's fastcgi_read_timeout (30 s) while
        more clients than the pool has threads top up, each on a purse and card of its own, waiting
        Retry-After (1-20 s) after a 503, and one more asks for the time again the moment it is
        refused: its refusals are held a second each, once a worker has refused it before. Every call is answered by keeper within its budget: "outcome
        unknown" for a commit that waited for the standby, "not applied" for the rest (no database
        connection came free, its budget went waiting for a thread, or it was refused on arrival);
        never nginx's own 502 or 504, never a closed connection. By request id, no call's audit row
        began after its client had the answer, and no top-up answered "not applied" is in topups;
        once the stall is over (the absent standby no longer named), each "outcome unknown" top-up
        is there once (docs/design.md, "Overload", "One deadline per call")."""
        clients = POOL_WORKERS * POOL_THREADS + 64
        who = Who()
        base = 9_000_000 + (os.getpid() % 1000) * 1000
        sql(f"INSERT INTO purses (purse, login_id) SELECT 'R' || (800000000000 + {base} + i)::text, id "
            f"FROM logins, generate_series(0, {clients - 1}) AS i WHERE login = '{who.login}'")
        sql(f"INSERT INTO cards (id, login_id, daily_limit) SELECT {base} + i, id, 999999999 "
            f"FROM logins, generate_series(0, {clients - 1}) AS i WHERE login = '{who.login}'")
        answers = []  # (kind, amount, request id, time.time() when the answer came)
        lock, stop, counter = threading.Lock(), threading.Event(), itertools.count(1)

        def kind(status, body, headers):
            if status == 503 and "not applied" in body and headers.get("Retry-After", "") in {str(n) for n in range(1, 21)}:
                return "not applied"
            if status == 500 and "outcome of the call is unknown" in body:
                return "outcome unknown"
            if status == 200 and body.rstrip().endswith(">0</int>"):
                return "done"
            return f"{status} {body[:120]!r}"

        def client(i):
            conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=60)
            while not stop.is_set():
                n = next(counter)
                amount = f"{n // 100}.{n % 100:02d}"
                try:
                    conn.request("GET", f"/AccountApi.asmx/TopupPurseFromAtmCard?sessionId={who.session}"
                                        f"&purseDest=R{800000000000 + base + i}&cardId={base + i}&amount={amount}")
                    r = conn.getresponse()
                    body = r.read().decode(errors="replace")
                    got = (kind(r.status, body, r.headers), amount, r.getheader("X-Request-Id"), time.time())
                except (OSError, http.client.HTTPException) as e:
                    conn.close()
                    got = (f"no answer: {e!r}", amount, None, time.time())
                with lock:
                    answers.append(got)
                if got[0] == "not applied":
                    time.sleep(int(r.getheader("Retry-After")))

        # One client that asks again the moment it is refused, on one kept connection: once the pool
        # refused it, each refusal it asks for before its wait ran out is held a second, whichever
        # worker takes it (docs/design.md, "Overload"), so it asks about once a second instead of
        # hundreds of times.
        storm = {"refused": 0, "held": 0, "kinds": set()}

        def storm_client():
            conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=60)
            while not stop.is_set():
                began = time.monotonic()
                try:
                    conn.request("GET", "/GlobalApi.asmx/GetUtcNow")
                    r = conn.getresponse()
                    body = r.read().decode(errors="replace")
                except (OSError, http.client.HTTPException) as e:
                    conn.close()
                    storm["kinds"].add(f"no answer: {e!r}")
                    continue
                if r.status == 503 and "not applied" in body and r.getheader("Retry-After"):
                    storm["kinds"].add("not applied")
                    storm["refused"] += 1
                    storm["held"] += time.monotonic() - began >= 0.9
                else:
                    storm["kinds"].add(f"{r.status}")
                    time.sleep(0.01)  # a call served: only its refusals come back at once

        def stalled_commits():
            return int(sql("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'"))

        held_before = metric("keeper_requests_refusals_held_total")
        sql("ALTER SYSTEM SET synchronous_standby_names = 'keeper_absent_standby'")
        sql("SELECT pg_reload_conf()")
        time.sleep(1)
        threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
        threads.append(threading.Thread(target=storm_client, daemon=True))
        try:
            for t in threads:
                t.start()
            time.sleep(35)
            stop.set()
            for t in threads:
                t.join(timeout=40)
        finally:
            sql("ALTER SYSTEM RESET synchronous_standby_names")
            sql("SELECT pg_reload_conf()")
        self.assertTrue(wait.until(lambda: stalled_commits() == 0, 5))
        by_kind = {}
        for k, *_ in answers:
            by_kind[k] = by_kind.get(k, 0) + 1
        RESULTS.append(("standby stalled, %d clients" % clients, len(answers),
                        len(answers) - by_kind.get("done", 0), 0,
                        ", ".join(f"{n} {k}" for k, n in sorted(by_kind.items()))))
        self.assertEqual(set(by_kind) - {"not applied", "outcome unknown", "done"}, set(), by_kind)
        RESULTS.append(("a client that does not wait", storm["refused"], storm["refused"] - storm["held"], 0,
                        f"{storm['held']} of its {storm['refused']} refusals held"))
        self.assertEqual(storm["kinds"] - {"not applied", "200"}, set(), storm)
        self.assertGreater(storm["held"], 0, f"the client that does not wait is held: {storm}")
        # Answered at once: its first refusal, and one after each wait it was told ran out between
        # calls it was served. The record of refused clients is the pool's: with one
        # for each worker, each of the 4 answered its first refusal at once.
        self.assertLess(storm["refused"] - storm["held"], 10, storm)
        # The clients that wait what they are told are never held: the pool counts the storm's alone.
        self.assertEqual(metric("keeper_requests_refusals_held_total") - held_before, storm["held"], storm)
        self.assertGreater(by_kind.get("outcome unknown", 0), 0, "commits waited for the standby")
        self.assertGreater(by_kind.get("not applied", 0), 0, "the calls beyond the connections were not applied")
        stored = sql(f"SELECT string_agg(t.amount::text, ' ') FROM topups t WHERE t.card_id BETWEEN {base} AND {base + clients - 1}").split()
        self.assertEqual(len(stored), len(set(stored)), "a top-up applied twice")
        not_applied = {a for k, a, _, _ in answers if k == "not applied"}
        self.assertEqual(sorted(not_applied & set(stored)), [], "top-ups answered 'not applied' were applied")
        told = {a for k, a, _, _ in answers if k in ("outcome unknown", "done")}
        self.assertEqual(sorted(set(stored) - told), [], "top-ups applied that no answer allowed for")
        self.assertEqual(sorted({a for k, a, _, _ in answers if k == "done"} - set(stored)), [], "acknowledged top-ups missing")
        # Each "outcome unknown" resolves by its request id: recorded exactly when the top-up is stored.
        for _, amount, request_id, _ in (a for a in answers if a[0] == "outcome unknown"):
            answer = call_outcome(request_id, who.session)
            self.assertEqual(answer.get("outcome") == "recorded", amount in stored, (amount, answer))
            self.assertIn(answer.get("outcome"), ("recorded", "none"), answer)
        # Audit rows by request id: each began before its client had the answer.
        answered_at = {rid: at for _, _, rid, at in answers if rid}
        rows = sql("SELECT string_agg(request_id || '=' || extract(epoch FROM at)::text, ' ') FROM audit_log "
                   "WHERE operation = 'TopupPurseFromAtmCard' AND request_id = ANY('{%s}')" % ",".join(answered_at)).split()
        late = [r for r in rows if float(r.split("=")[1]) > answered_at[r.split("=")[0]]]
        self.assertEqual(late, [], "calls whose transaction began after their client was answered")
        self.assertTrue(wait.until(lambda: len(workers()) == POOL_WORKERS, 5))

    def test_99_every_log_line_is_one_whole_record(self):
        # After every scenario (tens of thousands of calls through 4 workers at once, workers
        # killed mid-request): no two records share a line, no line is empty or cut. unittest runs
        # a class's tests in the order of their names: the scenarios' numbers are two digits so
        # that 10 follows 09, and this check is 99, last.
        import re
        record = re.compile(r'request_id=[0-9a-f]{32}( trace_id=[0-9a-f]{32})? group=\S+ operation=\S+ transport=\S+ outcome=\S+ '
                            r'status=\d{3} duration_ms=[0-9.]+( replayed=true)?( retried=true)?( detail="[^"\n]*")?')
        # The pool's events, and the lines libraries print (libpq's notices: PostgreSQL's immediate
        # restart in test_03 sends one to a connection a worker is opening) as events of their own
        # (core/pipeline/log_line.hpp, format_event; pool/log_writer.hpp).
        pool = re.compile(r"(pool|keeper-fcgi|worker|library): [ -~]+")
        with open(f"{STATE}/log/keeper.log", encoding="utf-8") as f:
            lines = f.read().split("\n")
        self.assertEqual(lines[-1], "", "the log ends with a whole line")
        bad = [l for l in lines[:-1] if not (record.fullmatch(l) or pool.fullmatch(l))]
        self.assertGreater(len(lines), 10000)
        self.assertEqual(bad[:5], [], f"{len(bad)} of {len(lines) - 1} lines are not one record")


if __name__ == "__main__":
    unittest.main(verbosity=2)
