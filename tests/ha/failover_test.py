"""keeper on a highly available PostgreSQL: failover and switchover under load (docs/scaling.md, "Measured").

On a test network of hosts (tests/harness/hostnet.py: each host a network namespace with an address
of its own, everything between hosts TCP), as the unprivileged user keeper: a Patroni cluster
(Debian's patroni and etcd-server; tests/ha/patroni_cluster.py) — three database hosts, each with
an etcd member, two of them with a PostgreSQL node under its own `patroni` — built from the shipped
packaging/patroni/config.yml and packaging/etcd/etcd.default, so with synchronous replication
(synchronous_mode: the primary's synchronous_standby_names names the standby). Two worker hosts
run keeper's pool, which connects to both nodes with libpq's multi-host form and
target_session_attrs=read-write, each behind its own nginx with the shipped keeper-tier.conf; an
edge host runs the front, nginx with the shipped keeper-front-locations.conf and
keeper-front-hosts.conf (tests/harness/net_stack.py).

While writers run top-ups (each a distinct amount) and contact permits (each a distinct WMID),
recording every acknowledgement: with Patroni's default settings, kill -9 of the primary's
postmaster (its Patroni starts it again); then, with the shipped timings, the primary host loses
its power (every process on it killed and its address silent: the workers' connections to it
hear no reset) and the standby takes the leader key when it expires; the host comes back and its
node rejoins as a standby (pg_rewind); then a planned
switchover back to it. On the primary at the end: every acknowledged write is there, none twice;
failed calls were server faults that ended within the configured timeouts, and none was applied
unless it said its outcome was unknown. Beside them a client repeats each top-up with its
Idempotency-Key until answered: each of its top-ups is applied exactly once. Prints the figures
docs/scaling.md quotes. Everything it starts is stopped and removed at the end.
"""
import collections
import glob
import json
import os
import shutil
import time
import unittest

from harness.hostnet import Network
from harness.keeper_stack import CARD, CARD2, LOGIN, PURSE2, RetryingWriters, Writers, make_root, wall_clock
from harness.net_stack import keeper_on_cluster, verdict
from harness.patroni_cluster import HOSTS, PASSWORD, Cluster, settled

# Bounds asserted here (the measured figures are printed; docs/scaling.md explains them). With the
# shipped timings (ttl 20 s, loop_wait 5 s) a dead primary's leader key expires within 20 s and the
# standby promotes on its next loop: 15-25 s; Patroni restarting a killed postmaster with its
# defaults: 10-20 s. A switchover takes about 2 s. The bounds leave room for a slow machine. No
# call outlives its deadline: call_budget_ms (10 s), and a second for the client's hop to nginx.
FAILOVER_BOUND_S, SWITCHOVER_BOUND_S, CALL_BOUND_S = 45, 10, 11
QUIET_S = 8  # a cluster counts as steady after this long without a failed call
STALL_S = 12  # the synchronous standby stops answering for longer than call_budget_ms (10 s)


class FailoverUnderLoad(unittest.TestCase):
    def setUp(self):
        self.root = make_root("keeper-ha-")
        self.addCleanup(shutil.rmtree, self.root, ignore_errors=True)
        self.net = Network(2, HOSTS)
        self.addCleanup(self.net.close)
        self.cluster = Cluster(self.root, self.net)
        self.front = None
        self.addCleanup(self.cleanup)
        self.cluster.create(manager_defaults=True)
        self.front = keeper_on_cluster(self.net, self.root, self.cluster, PASSWORD)
        print(f"network built in {self.net.build_seconds:.2f} s; cluster, pools and nginx up "
              f"{time.monotonic() - self.net.started:.1f} s after it began", flush=True)

    def sql(self, query):
        return self.front.sql(query)

    def cleanup(self):
        """What Patroni and PostgreSQL said about leadership and promotion, then stop everything."""
        for name in ("node1", "node2"):
            try:
                with open(f"{self.root}/{name}.log", errors="replace") as f:
                    lines = [l for l in f if any(w in l.lower() for w in ("promot", "leader", "demot", "rewind", "switchover"))]
                print(f"{name}.log:\n" + "".join(lines[-30:]), flush=True)
            except OSError:
                pass
            for path in sorted(glob.glob(f"{self.root}/{name}/log/*")):
                with open(path, errors="replace") as f:
                    lines = [l for l in f if any(w in l.lower() for w in ("promot", "checkpoint", "ready to accept"))]
                print(f"{path}:\n" + "".join(lines[-12:]), flush=True)
        self.cluster.stop()

    def test_no_acknowledged_write_is_lost_or_applied_twice(self):
        primary = self.cluster.primary()
        standby = next(m["name"] for m in self.cluster.members() if m["name"] != primary)
        self.assertEqual(self.sql("SHOW synchronous_commit").strip(), "on")
        self.assertIn(standby, self.sql("SHOW synchronous_standby_names"))
        writers, retrying = Writers(), RetryingWriters()
        writers.start()
        retrying.start()
        phases = [("postmaster killed", time.monotonic())]
        try:
            time.sleep(4)
            self.assertGreater(len(writers.acked()), 20, "no load before the failover")
            self.check_every_remote_connection_is_tls()
            # 0. Patroni's default settings; kill -9 of the primary's postmaster. (Its Patroni,
            # still holding the leader key, starts PostgreSQL again on its next loop.)
            self.cluster.kill_postmaster(primary)
            restart = self.outage(writers, "postmaster killed", time.monotonic(), FAILOVER_BOUND_S)
            # From here the shipped timings. 1. The primary's host dies.
            self.cluster.tune()
            phases.append(("host of the primary killed", time.monotonic()))
            dead = self.cluster.primary()
            self.cluster.kill_host(dead)  # from here no process of the dead node runs
            failover = self.outage(writers, f"host of the primary {dead} killed", time.monotonic(), FAILOVER_BOUND_S,
                                   steady=lambda members: any(m["name"] != dead and m["role"] == "leader" and
                                                              m["state"] == "running" for m in members))
            self.assertNotEqual(self.cluster.primary(), dead)
            # 2. It comes back, as a (synchronous) standby of the new primary. The next step begins
            # once writes flow again without a failure (commits wait while the standby catches up),
            # so that a call the return held up is not counted against the switchover.
            phases.append(("host back", time.monotonic()))
            self.cluster.revive_host(dead)
            self.cluster.wait_settled(120)
            self.outage(writers, f"host of {dead} back", phases[-1][1], FAILOVER_BOUND_S, since_last_ack=True)
            # 3. A planned switchover, back to the node that died.
            switched = time.monotonic()
            phases.append(("switchover", switched))
            self.cluster.switchover(self.cluster.primary(), dead)
            switch_gap = self.outage(writers, "switchover", switched, SWITCHOVER_BOUND_S, since_last_ack=True)
            back = self.cluster.primary()
            # 4. The synchronous standby stops answering for longer than call_budget_ms: commits
            # wait for it, and calls end "outcome unknown" at their deadline, never "done" for a
            # commit the standby lacks. Once it answers again, the keyed client's repeats are
            # answered as replays of what committed.
            stalled = next(m["name"] for m in self.cluster.members() if m["name"] != back)
            phases.append(("standby stalled", time.monotonic()))
            self.cluster.pause_postgres(stalled, True)
            try:
                time.sleep(STALL_S)
            finally:
                self.cluster.pause_postgres(stalled, False)
            self.outage(writers, "standby stalled", phases[-1][1], STALL_S + CALL_BOUND_S)
        finally:
            writers.finish()
            retrying.finish()
        self.check_writes(writers, restart, failover, switch_gap, self.failed_per_phase(writers, phases),
                          self.failed_in_phase(writers, phases, "switchover"))
        self.check_retrying_client(retrying)
        self.assertEqual(back, dead, "the switchover moved the primary back to the node that died")
        # The stall reached the calls: writes in it ended "outcome unknown" (their commits waited
        # for the standby past the deadline), and check_writes found none of the other failures
        # applied.
        stall_began = dict(phases)["standby stalled"]
        self.assertTrue(any(c[5] == "unknown" for c in writers.calls if c[3] >= stall_began),
                        "no write in the stall ended 'outcome unknown'")

    def check_every_remote_connection_is_tls(self):
        """The workers' connections and the standby's replication reach the primary over TLS, as
        the shipped pg_hba.conf (hostssl only) requires (docs/scaling.md, "Encryption and
        authentication between hosts")."""
        rows = self.sql("SELECT a.usename || ' ' || a.backend_type || ' ' || s.ssl FROM pg_stat_activity a "
                        "JOIN pg_stat_ssl s USING (pid) WHERE a.client_addr IS NOT NULL "
                        "AND a.client_addr <> '127.0.0.1'").strip().split("\n")
        print("remote connections to the primary (role, kind, TLS): " + json.dumps(dict(collections.Counter(rows))),
              flush=True)
        self.assertIn("keeper_worker client backend true", rows)
        self.assertIn("replicator walsender true", rows)
        self.assertEqual([r for r in rows if not r.endswith(" true")], [], "a remote connection in clear")

    def outage(self, writers, what, began, bound, since_last_ack=False, steady=settled):
        """Seconds from the event (or, for a switchover, from the last write acknowledged before
        the writes stopped) until writes were acknowledged again, taken once the cluster is
        steady (by default a leader running and a synchronous standby streaming), writes going
        through and none failed for QUIET_S."""
        deadline = began + bound + 60
        while time.monotonic() < deadline:
            time.sleep(1)
            is_steady = steady(self.cluster.members())
            now = time.monotonic()
            last_second = writers.longest_gap(now - 1, now)
            flowing = last_second[1] - last_second[0] < 1  # some write acknowledged in the last second
            if is_steady and flowing and now - began > QUIET_S and not writers.failed_since(now - QUIET_S):
                break
        else:
            self.fail(f"{what}: the cluster was not steady {bound + 60} s later: {self.cluster.states()}")
        a, b = writers.longest_gap(began, time.monotonic())
        took = b - a if since_last_ack else b - began
        print(f"{what} at {wall_clock(began)} UTC: no write acknowledged from {wall_clock(a)} to {wall_clock(b)}; "
              f"{took:.1f} s; states {self.cluster.states()}", flush=True)
        self.assertLessEqual(took, bound, f"{what}: writes came back only after {took:.1f} s")
        return took

    @staticmethod
    def failed_by_phase(writers, phases):
        """Failed calls of the plain writers, with when their step began, by the step during which
        they ended: a call in flight when a step begins fails because of that step."""
        bounds = [began for _, began in phases[1:]] + [float("inf")]
        return {name: (began, [c for c in writers.calls if began <= c[3] < end and not (c[4] == 200 and c[5] == "0")])
                for (name, began), end in zip(phases, bounds)}

    @classmethod
    def failed_per_phase(cls, writers, phases):
        return {name: len(calls) for name, (_, calls) in cls.failed_by_phase(writers, phases).items()}

    def failed_in_phase(self, writers, phases, name):
        """The failed calls that ended during the step `name`, each with its times from the step's
        start and the log lines of the worker hosts and nginx that name its request id."""
        began, calls = self.failed_by_phase(writers, phases)[name]
        lines = []
        for c in calls:
            lines.append(f"{c[0]} {c[1]}: status {c[4]} result {c[5]!r} request id {c[6]}, "
                         f"from {c[2] - began:+.2f} s to {c[3] - began:+.2f} s of the step")
            for path in sorted(glob.glob(f"{self.root}/log/*")) if c[6] else []:
                with open(path, errors="replace") as f:
                    lines += [f"  {os.path.basename(path)}: {l.rstrip()}" for l in f if c[6] in l]
        return "\n".join(lines)

    def check_retrying_client(self, retrying):
        """Every top-up of the client that repeats with its Idempotency-Key is applied exactly
        once, whatever the cluster did meanwhile (docs/scaling.md, "What a call does when the
        database moves")."""
        amounts = collections.Counter(self.sql(f"SELECT amount FROM topups WHERE card_id = {CARD2}").split())
        answered = [a for a in retrying.intended if retrying.answers.get(a) == "0"]
        balance = self.sql(f"SELECT balance FROM purses WHERE purse = '{PURSE2}'").strip()
        figures = {"top_ups": len(retrying.intended), "sends": retrying.sends, "replays": retrying.replays,
                   "answered_0": len(answered), "rows": sum(amounts.values()), "balance": balance}
        print("HA retrying client with keys: " + json.dumps(figures), flush=True)
        self.assertEqual(len(answered), len(retrying.intended), "every top-up got its answer, and it was 0")
        # The stalled standby left top-ups committed whose client heard "outcome unknown": their
        # repeats were answered from the record, once the standby had them.
        self.assertGreater(retrying.replays, 0, "no repeat was answered as a replay")
        self.assertEqual(sorted(amounts.elements()), sorted(retrying.intended), "every top-up exactly once")
        self.assertEqual(balance, f"{sum(int(a.replace('.', '')) for a in retrying.intended) / 100:.2f}")

    def check_writes(self, writers, restart, failover, switch_gap, per_phase, switchover_failures):
        """Each call by its request id (net_stack.verdict): acknowledged ones applied once, failed
        ones absent unless "outcome unknown" (docs/design.md, "In-doubt calls"), and each of those
        answered by /call-outcome as what happened."""
        amounts = collections.Counter(self.sql(f"SELECT amount FROM topups WHERE card_id = {CARD}").split())
        wmids = set(self.sql(f"SELECT wmid FROM contact_permits c JOIN logins l ON l.id = c.login_id "
                             f"WHERE l.login = '{LOGIN}'").split())
        figures, problems = verdict(writers.calls, amounts, wmids)
        slowest = max(c[3] - c[2] for c in writers.calls)
        figures.update({"first_write_after_postmaster_kill_s": round(restart, 1),
                        "first_write_after_host_death_s": round(failover, 1),
                        "switchover_longest_gap_s": round(switch_gap, 1), "slowest_call_s": round(slowest, 1),
                        "failed_per_step": per_phase})
        print("HA figures: " + json.dumps(figures), flush=True)
        self.assertEqual(problems, {})
        # A switchover's gap (about 2 s) is shorter than call_budget_ms: its calls wait, none fails.
        self.assertEqual(per_phase["switchover"], 0, "a call failed in a planned switchover:\n" + switchover_failures)
        self.assertLessEqual(slowest, CALL_BOUND_S, "a call outlived its deadline")
        self.assertEqual(set(figures["failed_statuses"]) - {500, 503}, set(),
                         "a failed call that was neither a server fault nor not applied")


if __name__ == "__main__":
    unittest.main(verbosity=2)
