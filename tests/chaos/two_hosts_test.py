"""Two worker hosts behind one front, on a network of hosts (tests/harness/hostnet.py): faults from the
network as well as from kill.

Hosts, each a network namespace with an address of its own, all talking TCP: `edge` (the front:
nginx with the shipped keeper-front-locations.conf and keeper-front-hosts.conf), `w1` and `w2`
(each keeper-fcgi, 2 workers, on Unix sockets behind its own nginx with the shipped
keeper-tier.conf on :8443, mutual TLS with the front), `db` (PostgreSQL). The clients run on the
machine itself.

test_fault_*: one fault each, while writers run top-ups and contact permits: a worker of w1 is
killed; the front's connections to the worker hosts are reset from the edge (`ss -K`), or from w2;
w1 loses 10 % of its packets; w2's link is slowed; w1's nginx is stopped; w1 is cut off silently;
w1's power is cut (no call waits past its deadline and 2 s; the front sends no new call to w1
after its first failure); w2 is frozen whole. Each call is then judged by its request id (net_stack.verdict): acknowledged
ones applied once, "not applied" ones absent, each "outcome unknown" answered by /call-outcome as
what happened. No call ran on both hosts. A failure names its fault.

test_resets_of_calls_waiting_on_a_card_lock: top-ups wait on their card's lock (held by the test)
when the front's connections carrying them are reset. The front sends each again to the same host,
marked as sent before, and that host's nginx to its retry socket, which ends the first attempt,
though its worker lives, before it runs the call: every amount is
applied at most once, and once when acknowledged (docs/design.md, "In-doubt calls").

test_keyed_repeats_on_either_host_through_a_key_rotation: each host has a key file of its own; w2
takes a new key (reloaded) while w1 has the old alone, and keyed top-ups repeated through the
front, so over both hosts, each answer the recorded call, never 422.

test_a_call_held_on_a_longer_budget_host_never_commits_after_none: w1 at a 20 s budget, w2 at 10 s;
a top-up held on w1 before its statement, "none" from w2 after its own final time, then w1 goes on:
the attempt changes nothing (docs/design.md, "A call decided as not applied").

test_a_call_is_checked_while_the_host_that_ran_it_is_down: /call-outcome through the front with w1's
nginx stopped, whichever host the front chose first.

test_the_front_answers_not_applied_in_each_shape_when_no_host_is_reached: with both hosts' nginx
stopped, a call over SOAP 1.1, SOAP 1.2, HTTP GET, HTTP POST and JSON each gets "not applied" with Retry-After in
its own shape.

Bounded: about three minutes; it stops and removes every process, namespace and directory it started.
Needs root and scripts/test's build (KEEPER_TEST_*).
"""
import collections
import http.client
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import threading
import time
import unittest
import urllib.parse
from pathlib import Path

from harness.hostnet import Network
from harness.net_stack import (TIER_PORT, database_hosts, make_tier_certificates, restart_nginx, start_database,
                       start_edge, start_pool, stop_nginx, verdict, workers_of)
from harness import keeper_stack, wait
from harness.keeper_stack import (CARD, CARD2, LOGIN, PURSE2, SESSION, KeeperFront, Writers, call_outcome,
                          make_root)

HOSTS = {"edge": 10, "w1": 11, "w2": 12, "db": 30}
FAULT_S, CALM_S = 3, 2
# Longer than fastcgi_connect_timeout (5 s): calls nginx sends to w1 meanwhile are never connected.
PARTITION_S = 7
# Longer than call_budget_ms (10 s): calls w2 had begun outlive their deadline there.
FREEZE_S = 12
# Longer than the front's proxy_read_timeout (11 s): every call on its way to the dead host times out.
POWER_CUT_S = 14
# keeper-front-hosts.conf: how long the front skips a host after one failure.
FAIL_TIMEOUT_S = 10
# The call's deadline (call_budget_ms) and the front's slack after it (docs/scaling.md, "The front").
LONGEST_CALL_S = 10 + 2


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
            # Each worker host has a key file of its own, as hosts do: a key rotation reaches them
            # one at a time (test_keyed_repeats_on_either_host_through_a_key_rotation).
            make_tier_certificates(cls.net, cls.root, ("w1", "w2"))
            cls.host_env = {}
            for host in ("w1", "w2"):
                shutil.copy2(f"{cls.root}/secret.keys", f"{cls.root}/{host}-secret.keys")
                shutil.chown(f"{cls.root}/{host}-secret.keys", "keeper")
                # And a configuration file of its own, empty: a setting rolled host by host
                # (test_a_call_held_on_a_longer_budget_host_never_commits_after_none).
                Path(f"{cls.root}/{host}.conf").write_text("")
                cls.host_env[host] = dict(cls.front.env, KEEPER_SECRET_KEY_FILE=f"{cls.root}/{host}-secret.keys",
                                          KEEPER_CONFIG=f"{cls.root}/{host}.conf")
                start_pool(cls.net, cls.root, host, cls.host_env[host])
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

    def setUp(self):
        """Each test begins with the front sending calls to both hosts again: after a fault it
        skips a host that failed for FAIL_TIMEOUT_S (keeper-front-hosts.conf)."""
        sizes = {h: len(self.log(h)) for h in ("w1", "w2")}

        def both_hosts_served():
            Writers.call("/GlobalApi.asmx/GetUtcNow", {})
            return all(len(self.log(h)) > n for h, n in sizes.items())
        if wait.until(both_hosts_served, FAIL_TIMEOUT_S + 5):
            return
        with open(f"{self.root}/log/edge-nginx-access.log") as f:
            tail = f.readlines()[-6:]
        self.fail(f"the front did not come back to both hosts within {FAIL_TIMEOUT_S + 5} s; its last calls:\n"
                  + "".join(tail))

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

    def stop_nginx(self, host):
        stop_nginx(self.root, host)

    def restart_nginx(self, host):
        restart_nginx(self.net, self.root, host)

    def elsewhere(self):
        """Calls the front sent to another host after their first reached none (the access log's
        upstream_addr names two hosts)."""
        with open(f"{self.root}/log/edge-nginx-access.log") as f:
            return sum(1 for line in f if re.search(r'upstream_addr="([0-9.:]+) : (?!\1")', line))

    def for_a_while(self, seconds, start, end, host, *args):
        start(host, *args)
        try:
            time.sleep(seconds)
        finally:
            end(host)

    # --- each fault under write load, a test of its own -----------------------------------------
    def under_write_load(self, name, fault, first_key):
        """Writers run top-ups and contact permits for CALM_S, through fault(), and CALM_S after it;
        each of their calls is then judged by its request id (net_stack.verdict). Returns the
        figures, printed under name; fails on any problem, and when a call ran on both hosts."""
        retried_before = {h: self.log(h).count(" retried=true") for h in ("w1", "w2")}
        elsewhere_before = self.elsewhere()
        writers = Writers(threads=6, first_key=first_key)
        writers.start()
        try:
            time.sleep(CALM_S)
            note = fault()
            time.sleep(CALM_S)
        finally:
            writers.finish()
        amounts = collections.Counter(self.sql(f"SELECT amount FROM topups WHERE card_id = {CARD}").split())
        wmids = set(self.sql(f"SELECT wmid FROM contact_permits c JOIN logins l ON l.id = c.login_id "
                             f"WHERE l.login = '{LOGIN}'").split())
        figures, problems = verdict(writers.calls, amounts, wmids)
        mine = {c[6] for c in writers.calls if c[6]}
        both = self.request_ids("w1") & self.request_ids("w2") & mine
        figures.update(longest_s=round(max((c[3] - c[2] for c in writers.calls), default=0), 2),
                       retried={h: self.log(h).count(" retried=true") - n for h, n in retried_before.items()},
                       ran_on_both_hosts=len(both), sent_elsewhere=self.elsewhere() - elsewhere_before,
                       delay=self.net.delay_kind)
        if note is not None:
            figures["connections_reset"] = note
        print(f"{name}: " + json.dumps(figures), flush=True)
        self.assertEqual(problems, {})
        self.assertEqual(both, set(), "a call ran on both hosts")
        self.assertGreater(figures["acknowledged"], 20, "the writers got through")
        return figures

    def test_fault_a_worker_of_w1_killed_three_times(self):
        figures = self.under_write_load("a worker of w1 killed, 3 times", self.kill_workers, 100_001)
        self.assertGreater(sum(figures["retried"].values()), 0, "the dead workers' calls came again on a retry socket")

    def test_fault_the_fronts_connections_reset_from_the_edge(self):
        figures = self.under_write_load("the front's connections reset from the edge",
                                        lambda: self.reset_from("edge", "dport = :8443"), 120_001)
        self.assertGreater(figures["connections_reset"], 0, "ss -K found live connections")

    def test_fault_the_fronts_connections_reset_from_w2(self):
        figures = self.under_write_load("the front's connections reset from w2",
                                        lambda: self.reset_from("w2", "sport = :8443"), 140_001)
        self.assertGreater(figures["connections_reset"], 0, "ss -K found live connections")

    def test_fault_w1_loses_a_tenth_of_its_packets(self):
        self.under_write_load("w1 loses 10 % of its packets",
                              lambda: self.for_a_while(FAULT_S, self.net.lose, self.net.heal, "w1", 10), 160_001)

    def test_fault_w2s_link_slow(self):
        self.under_write_load("w2's link slow", lambda: self.for_a_while(FAULT_S, self.net.slow, self.net.heal, "w2"),
                              180_001)

    def test_fault_w1s_nginx_stopped(self):
        figures = self.under_write_load("w1's nginx stopped",
                                        lambda: self.for_a_while(FAULT_S, self.stop_nginx, self.restart_nginx, "w1"),
                                        200_001)
        # A call the front wrote on a kept connection as w1's nginx closed it may have been read:
        # "outcome unknown" (resolved by the verdict), never a refusal.
        self.assertEqual(figures["failed"], figures["outcome_unknown"],
                         "the calls for a host whose nginx is down go to the other host")
        self.assertGreater(figures["sent_elsewhere"], 0, "calls that reached no host went to the other one")

    def test_fault_w1_cut_off_silently_past_the_connect_timeout(self):
        self.under_write_load("w1 cut off, silently, past nginx's connect timeout",
                              lambda: self.for_a_while(PARTITION_S, self.net.partition, self.net.heal, "w1"), 220_001)

    def test_fault_w1_power_cut(self):
        """w1 dies whole (every process killed, its link silent) for longer than the front waits:
        no call waits past its deadline and the front's slack, and once a call to w1 has failed,
        the front sends no new call there (it skips a failed host, max_fails=1)."""
        started = time.time()

        def power_cut():
            self.net.kill_host("w1")
            time.sleep(POWER_CUT_S)
            self.net.heal("w1")
            for name in ("keeper.sock", "keeper-retry.sock"):
                Path(f"{self.root}/w1/{name}").unlink(missing_ok=True)
            start_pool(self.net, self.root, "w1", self.host_env["w1"])

        figures = self.under_write_load("w1's power cut", power_cut, 260_001)
        self.assertLessEqual(figures["longest_s"], LONGEST_CALL_S, "a call waited past its deadline and the slack")
        failed_at, after = self.front_calls_to("w1", started)
        print(f"w1's power cut: first failure {failed_at - started:.2f} s in; first attempts to w1 within "
              f"{FAIL_TIMEOUT_S} s after it: {after}", flush=True)
        self.assertEqual(after, 0, "the front sent new calls to a host after it failed")

    def front_calls_to(self, host, since):
        """From the front's access log: when the first call to host that began after `since` failed
        there (its request id's time plus its duration), and how many calls began at least 0.2 s
        after that, within FAIL_TIMEOUT_S - 1 s of it, with host as their first attempt's."""
        address = f"{self.net.address(host)}:{TIER_PORT}"
        calls = []
        with open(f"{self.root}/log/edge-nginx-access.log") as f:
            for line in f:
                m = re.search(r'request_id=(\d{13})\S* .*request_time=([\d.]+) .*upstream_status=(\S+)'
                              r'.* upstream_addr="([^" ]+)', line)
                if m and int(m.group(1)) / 1000 >= since:
                    calls.append((int(m.group(1)) / 1000, float(m.group(2)), m.group(3), m.group(4)))
        failures = [began + took for began, took, status, first in calls
                    if first == address and status.split(":")[0].strip() in ("502", "504")]
        self.assertTrue(failures, f"no call to {host} failed")
        failed_at = min(failures)
        after = sum(1 for began, _, _, first in calls
                    if first == address and failed_at + 0.2 <= began <= failed_at + FAIL_TIMEOUT_S - 1)
        return failed_at, after

    def test_fault_w2_frozen_past_the_call_budget(self):
        self.under_write_load("w2 frozen past the call budget",
                              lambda: self.for_a_while(FREEZE_S, self.net.freeze, self.net.thaw, "w2"), 240_001)

    def test_keyed_repeats_on_either_host_through_a_key_rotation(self):
        """docs/operations.md, "The secret key": the new key reaches w2 first (its key file: the new
        key, the old one below it; a reload), while w1 has the old key alone. Keyed top-ups, each
        repeated with its key and amount (each send a request of its own, so the front spreads
        them over both hosts, as it would a client's repeats): each is applied once, and every
        repeat answers the recorded call, never 422 ("a new call needs a new key", after which an
        obeying client writes twice)."""
        purse, card = "Z912000000003", 912003
        self.front.keeperctl("add-purse", LOGIN, purse)
        self.front.keeperctl("add-card", LOGIN, str(card))
        new_key = self.front.keeperctl("new-key", "k2")
        with open(f"{self.root}/w2-secret.keys") as f:
            old_keys = f.read()
        with open(f"{self.root}/w2-secret.keys", "w") as f:
            f.write(new_key + old_keys)
        self.reload("w2")
        answers = collections.Counter()
        for n in range(1, 25):
            params = {"sessionId": SESSION, "purseDest": purse, "cardId": card, "amount": f"3.{n:02d}"}
            for attempt in range(4):
                conn = http.client.HTTPConnection(*keeper_stack.front, timeout=30)
                conn.request("GET", "/AccountApi.asmx/TopupPurseFromAtmCard?" + urllib.parse.urlencode(params),
                             headers={"Idempotency-Key": f"rotation-{n}"})
                r = conn.getresponse()
                body = r.read().decode()
                answers[(r.status, r.getheader("Idempotent-Replayed") == "true" if attempt else "first")] += 1
                conn.close()
        rows = collections.Counter(self.sql(f"SELECT amount FROM topups WHERE card_id = {card}").split())
        replays = {h: len(re.findall(r"operation=TopupPurseFromAtmCard .*replayed=true", self.log(h))) for h in ("w1", "w2")}
        print(f"key rotation: answers {dict(answers)}; replays by host {replays}; rows {len(rows)}", flush=True)
        self.assertEqual(dict(answers), {(200, "first"): 24, (200, True): 72}, body)
        self.assertEqual(sorted(rows.values()), [1] * 24)
        self.assertTrue(all(replays.values()), "both hosts answered repeats")

    def reload(self, host):
        """SIGHUP to host's pool; returns once its workers are new ones."""
        pool = next(pid for pid in self.net.pids(host) if pid not in workers_of(self.net, host) and
                    Path(f"/proc/{pid}/comm").read_text().strip() == "keeper-fcgi")
        before = set(workers_of(self.net, host))
        os.kill(pool, signal.SIGHUP)
        if not wait.until(lambda: before.isdisjoint(workers_of(self.net, host)), 20):
            self.fail(f"{host}'s workers were not replaced by the reload")

    def as_front(self, host, path, params, rid=None, timeout=45):
        """(status, body) of a GET at host's tier listener, sent as the front sends it: its
        certificate, and the call's request id when given."""
        tls = ssl.create_default_context(cafile=f"{self.root}/tier/ca.crt")
        tls.load_cert_chain(f"{self.root}/tier/front.crt", f"{self.root}/tier/front.key")
        tls.check_hostname = False
        conn = http.client.HTTPSConnection(self.net.address(host), TIER_PORT, context=tls, timeout=timeout)
        try:
            conn.request("GET", path + "?" + urllib.parse.urlencode(params),
                         headers={"X-Keeper-Request-Id": rid} if rid else {})
            r = conn.getresponse()
            return r.status, r.read().decode(errors="replace")
        finally:
            conn.close()

    def test_a_call_held_on_a_longer_budget_host_never_commits_after_none(self):
        """Hosts that disagree (docs/design.md, "A call decided as not applied"): w1 at
        call_budget_ms 20 000, w2 at 10 000. A top-up reaches w1, whose workers are stopped before
        they send it; the client's look, answered by w2 after w2's own final time (16 s after the
        call's time), says "none"; then w1's workers go on, within w1's budget: the attempt
        changes nothing, and the look still says "none". Never "none" followed by a commit."""
        purse, card = "Z912000000004", 912004
        self.front.keeperctl("add-purse", LOGIN, purse)
        self.front.keeperctl("add-card", LOGIN, str(card))
        Path(f"{self.root}/w1.conf").write_text("call_budget_ms = 20000\n")
        self.reload("w1")
        stopped = workers_of(self.net, "w1")
        rid = f"{int(time.time() * 1000):013d}{os.urandom(10).hex()[:19]}"
        answer = {}
        try:
            for pid in stopped:
                os.kill(pid, signal.SIGSTOP)
            top_up = threading.Thread(target=lambda: answer.update(at_w1=self.as_front(
                "w1", "/AccountApi.asmx/TopupPurseFromAtmCard",
                {"sessionId": SESSION, "purseDest": purse, "cardId": card, "amount": "4.00"}, rid)))
            top_up.start()
            time.sleep(max(0.0, int(rid[:13]) / 1000 + 16.5 - time.time()))
            status, body = self.as_front("w2", "/call-outcome", {"sessionId": SESSION, "requestId": rid})
            self.assertEqual((status, json.loads(body).get("outcome")), (200, "none"), body)
        finally:
            for pid in stopped:
                os.kill(pid, signal.SIGCONT)
        top_up.join(60)
        status, body = answer.get("at_w1", (0, "no answer"))
        print(f"held on w1: {status} {body[:120]!r}", flush=True)
        self.assertNotEqual(status, 200, body)
        self.assertIn("not applied", body)
        self.assertEqual(self.sql(f"SELECT count(*) FROM topups WHERE request_id = '{rid}'").strip(), "0")
        self.assertEqual(self.sql(f"SELECT count(*) FROM audit_log WHERE request_id = '{rid}'").strip(), "0")
        status, body = self.as_front("w2", "/call-outcome", {"sessionId": SESSION, "requestId": rid})
        self.assertEqual(json.loads(body).get("outcome"), "none", body)
        Path(f"{self.root}/w1.conf").write_text("")
        self.reload("w1")

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
        cut = self.net.reset("edge", "dport = :8443")
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

    def test_a_call_is_checked_while_the_host_that_ran_it_is_down(self):
        """/call-outcome is a read from the database: with w1's nginx stopped, every look is answered
        by w2, whichever host the front chose first (round robin, or w2 once w1 failed), and
        says what the call recorded."""
        conn = http.client.HTTPConnection(*keeper_stack.front, timeout=30)
        conn.request("GET", f"/AccountApi.asmx/SetAccountPermits?sessionId={SESSION}&acceptPayments=true"
                            "&acceptInvoices=false&acceptMessages=true")
        r = conn.getresponse()
        self.assertEqual(r.status, 200, r.read())
        request_id = r.getheader("X-Request-Id")
        conn.close()
        stop_nginx(self.root, "w1")
        try:
            answers = [keeper_stack.call_outcome(request_id) for _ in range(16)]
        finally:
            restart_nginx(self.net, self.root, "w1")
        self.assertEqual([(a.get("outcome"), a.get("result")) for a in answers], [("recorded", 0)] * 16, answers)

    def test_the_front_answers_not_applied_in_each_shape_when_no_host_is_reached(self):
        """Both hosts' nginx stopped: each call reaches no host, on its first host or the next one,
        and the front answers "not applied" (503, or a SOAP fault, with Retry-After) in the shape of
        the call's transport (SOAP 1.1, SOAP 1.2, HTTP GET, HTTP POST, JSON), from the shipped
        keeper-errors.conf."""
        soap11 = ('<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">'
                  '<soap:Body><GetUtcNow xmlns="http://tempuri.org/" /></soap:Body></soap:Envelope>')
        soap12 = soap11.replace("http://schemas.xmlsoap.org/soap/envelope/", "http://www.w3.org/2003/05/soap-envelope")
        calls = {
            "HTTP GET": ("GET", "/GlobalApi.asmx/GetUtcNow", None, {}),
            "HTTP POST": ("POST", "/GlobalApi.asmx/GetUtcNow", "", {"Content-Type": "application/x-www-form-urlencoded"}),
            "SOAP 1.1": ("POST", "/GlobalApi.asmx", soap11,
                         {"Content-Type": "text/xml; charset=utf-8", "SOAPAction": '"http://tempuri.org/GetUtcNow"'}),
            "SOAP 1.2": ("POST", "/GlobalApi.asmx", soap12, {"Content-Type": "application/soap+xml; charset=utf-8"}),
            "JSON": ("POST", "/GlobalApi.asmx/GetUtcNow", "{}", {"Content-Type": "application/json; charset=utf-8"}),
        }
        for host in ("w1", "w2"):
            stop_nginx(self.root, host)
        try:
            answers = {}
            for shape, (method, path, body, headers) in calls.items():
                conn = http.client.HTTPConnection(*keeper_stack.front, timeout=30)
                conn.request(method, path, body, headers)
                r = conn.getresponse()
                answers[shape] = (r.status, r.getheader("Content-Type"), r.getheader("Retry-After"),
                                  r.read().decode())
                conn.close()
        finally:
            for host in ("w1", "w2"):
                restart_nginx(self.net, self.root, host)
        print("no host reached: " + json.dumps({k: v[:3] for k, v in answers.items()}), flush=True)
        expected = {"HTTP GET": (503, "text/plain"), "HTTP POST": (503, "text/plain"), "SOAP 1.1": (500, "text/xml"), "SOAP 1.2": (500, "application/soap+xml"),
                    "JSON": (503, "application/json")}
        for shape, (status, kind) in expected.items():
            got_status, got_type, retry_after, text = answers[shape]
            self.assertEqual((got_status, got_type.split(";")[0], retry_after), (status, kind, "1"), shape)
            self.assertIn("The call was not applied", text, shape)
        self.assertIn("<soap:Fault>", answers["SOAP 1.1"][3])
        self.assertIn("<soap:Value>soap:Receiver</soap:Value>", answers["SOAP 1.2"][3])


if __name__ == "__main__":
    unittest.main(verbosity=2)
