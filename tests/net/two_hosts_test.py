"""Two worker hosts behind one nginx, on a network of hosts (tests/net/hostnet.py): faults from the
network as well as from kill.

Hosts, each a network namespace with an address of its own, all talking TCP: `edge` (nginx with
the shipped keeper-locations.conf and keeper-upstream-hosts.conf), `w1` and `w2` (keeper-fcgi,
2 workers each, main socket :9000, retry socket :9001), `db` (PostgreSQL). The clients run on the
machine itself.

test_faults_under_write_load: writers run top-ups and contact permits while, one after another, a
worker of w1 is killed; nginx's connections to the workers are reset from the edge (`ss -K`),
then from w2; w1 loses 10 % of its packets; w2's link is slowed; w1 is cut off silently; w2 is
frozen whole. Each call is then judged by its request id (net_stack.verdict): acknowledged ones
applied once, "not applied" ones absent, each "outcome unknown" answered by /call-outcome as what
happened. No call ran on both hosts.

test_resets_of_calls_waiting_on_a_card_lock: top-ups wait on their card's lock (held by the test)
when nginx's connections carrying them are reset. Each is sent again to its host's retry socket,
which ends the first attempt, though its worker lives, before it runs the call: every amount is
applied at most once, and once when acknowledged (docs/design.md, "In-doubt calls").

Bounded: about a minute; it stops and removes every process, namespace and directory it started.
Needs root and scripts/test's build (KEEPER_TEST_*).
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostnet import Network  # noqa: E402
from net_stack import (database_hosts, start_database, start_edge, start_pool, verdict,  # noqa: E402
                       workers_of)
from keeper_stack import (CARD, CARD2, LOGIN, PURSE2, SESSION, KeeperFront, Writers, call_outcome,  # noqa: E402
                          make_root)

HOSTS = {"edge": 10, "w1": 11, "w2": 12, "db": 30}
FAULT_S, CALM_S = 3, 2
# Longer than fastcgi_connect_timeout (5 s): calls nginx sends to w1 meanwhile are never connected.
PARTITION_S = 7
# Longer than call_budget_ms (10 s): calls w2 had begun outlive their deadline there.
FREEZE_S = 12


class TwoHostsOnANetwork(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root, cls.net = make_root("keeper-two-hosts-"), None
        try:
            cls.net = Network(1, HOSTS)
            start_database(cls.net, cls.root, "db")
            hosts = database_hosts(cls.net, ["db"])
            cls.front = KeeperFront(cls.root, hosts, f"postgres://{cls.net.address('db')}/keeper")
            cls.front.env["KEEPER_DRAIN_SECONDS"] = "1"
            cls.front.prepare_database()
            for host in ("w1", "w2"):
                start_pool(cls.net, cls.root, host, cls.front.env)
            start_edge(cls.net, cls.root, "edge")
        except BaseException:
            cls.tearDownClass()
            raise
        print(f"\nnetwork built in {cls.net.build_seconds:.2f} s; stack up {time.monotonic() - cls.net.started:.1f} s "
              "after it began", flush=True)

    @classmethod
    def tearDownClass(cls):
        if cls.net:
            cls.net.close()
        shutil.rmtree(cls.root, ignore_errors=True)

    def sql(self, query):
        return self.front.sql(query)

    def log(self, host):
        with open(f"{self.root}/log/{host}.log", errors="replace") as f:
            return f.read()

    def request_ids(self, host):
        return set(re.findall(r"request_id=([0-9a-f]{32}).* group=AccountApi", self.log(host)))

    # --- the faults -----------------------------------------------------------------------------
    def kill_workers(self):
        for _ in range(3):
            os.kill(workers_of(self.net, "w1")[0], 9)
            time.sleep(1)

    def reset_from(self, host, which):
        cut = 0
        for _ in range(4):
            cut += self.net.reset(host, which)
            time.sleep(0.7)
        return cut

    def for_a_while(self, seconds, start, end, host, *args):
        start(host, *args)
        try:
            time.sleep(seconds)
        finally:
            end(host)

    def test_faults_under_write_load(self):
        net = self.net
        faults = [
            ("a worker of w1 killed, 3 times", self.kill_workers),
            ("nginx's connections reset from the edge", lambda: self.reset_from("edge", "dport = :9000")),
            ("nginx's connections reset from w2", lambda: self.reset_from("w2", "sport = :9000")),
            ("w1 loses 10 % of its packets", lambda: self.for_a_while(FAULT_S, net.lose, net.heal, "w1", 10)),
            ("w2's link slow", lambda: self.for_a_while(FAULT_S, net.slow, net.heal, "w2")),
            ("w1 cut off, silently, past nginx's connect timeout", lambda: self.for_a_while(PARTITION_S, net.partition, net.heal, "w1")),
            ("w2 frozen past the call budget", lambda: self.for_a_while(FREEZE_S, net.freeze, net.thaw, "w2")),
        ]
        writers = Writers(threads=6)
        writers.start()
        phases, notes = [], {}
        try:
            time.sleep(CALM_S)
            for name, fault in faults:
                phases.append((name, time.monotonic()))
                notes[name] = fault()
                time.sleep(CALM_S)
        finally:
            writers.finish()
        amounts = collections.Counter(self.sql(f"SELECT amount FROM topups WHERE card_id = {CARD}").split())
        wmids = set(self.sql(f"SELECT wmid FROM contact_permits c JOIN logins l ON l.id = c.login_id "
                             f"WHERE l.login = '{LOGIN}'").split())
        figures, problems = verdict(writers.calls, amounts, wmids)
        figures["per_fault"] = self.per_phase(writers.calls, phases)
        figures["connections_reset"] = {k: v for k, v in notes.items() if v is not None}
        figures["delay"] = net.delay_kind
        retried = {h: self.log(h).count(" retried=true") for h in ("w1", "w2")}
        both = self.request_ids("w1") & self.request_ids("w2")
        figures.update(retried_calls=retried, ran_on_both_hosts=len(both))
        print("two hosts on a network: " + json.dumps(figures), flush=True)
        self.assertEqual(problems, {})
        self.assertEqual(both, set(), "a call ran on both hosts")
        self.assertGreater(figures["acknowledged"], 100, "the writers got through")
        self.assertGreater(retried["w1"] + retried["w2"], 0, "broken connections' calls came again on a retry socket")
        self.assertGreater(sum(figures["connections_reset"].values()), 0, "ss -K found live connections")

    @staticmethod
    def per_phase(calls, phases):
        """Calls by the fault during (or after) which they ended: acknowledged/failed/unknown."""
        bounds = [began for _, began in phases[1:]] + [float("inf")]
        out = {}
        for (name, began), end in zip(phases, bounds):
            ended = [c for c in calls if began <= c[3] < end]
            out[name] = "%d/%d/%d" % (sum(1 for c in ended if c[4] == 200 and c[5] == "0"),
                                      sum(1 for c in ended if not (c[4] == 200 and c[5] == "0")),
                                      sum(1 for c in ended if c[5] == "unknown"))
        return out

    def test_resets_of_calls_waiting_on_a_card_lock(self):
        amounts = [f"7.{n:02d}" for n in range(1, 13)]
        answers = {}

        def top_up(amount):
            answers[amount] = Writers.call("/AccountApi.asmx/TopupPurseFromAtmCard",
                                           {"sessionId": SESSION, "purseDest": PURSE2, "cardId": CARD2, "amount": amount})

        # The card's lock (keeper_topup's advisory lock) held for 1.5 s: under lock_timeout_ms (2 s).
        holder = subprocess.Popen(["runuser", "-u", "keeper", "--", "psql", self.front.uri, "-Atqc",
                                   f"BEGIN; SELECT pg_advisory_xact_lock(2, hashint8({CARD2}::bigint)); "
                                   "SELECT pg_sleep(1.5); COMMIT;"], stdout=subprocess.DEVNULL)
        time.sleep(0.3)
        threads = [threading.Thread(target=top_up, args=(a,)) for a in amounts]
        for t in threads:
            t.start()
        time.sleep(0.6)  # each top-up is in a worker, waiting on the lock
        waiting = int(self.sql("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'advisory' "
                               "AND backend_type = 'client backend'"))
        cut = self.net.reset("edge", "dport = :9000")
        holder.wait(10)
        for t in threads:
            t.join(60)
        rows = collections.Counter(self.sql(f"SELECT amount FROM topups WHERE card_id = {CARD2}").split())
        outcomes = {a: (s, r) for a, (s, r, _) in answers.items()}
        resolved = {a: call_outcome(i).get("outcome") for a, (s, r, i) in answers.items() if r == "unknown"}
        print(f"card lock: {waiting} calls waiting on it, {cut} connections reset; answers {outcomes}; "
              f"unknown resolved {resolved}; rows per amount {dict(rows)}", flush=True)
        self.assertGreater(cut, 0, "ss -K reset connections that carried calls")
        self.assertEqual([a for a, n in rows.items() if n > 1], [], "a top-up applied twice")
        for a, (status, result, _) in answers.items():
            if result == "0":
                self.assertEqual(rows[a], 1, f"top-up {a} acknowledged")
            elif result == "unknown":
                self.assertEqual(resolved[a], "recorded" if rows[a] else "none", a)
            else:
                self.assertEqual(rows[a], 0, f"top-up {a} answered {status} {result}, yet applied")
        self.assertGreater(sum(self.log(h).count(" retried=true") for h in ("w1", "w2")), 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
