"""A worker host whose clock is 30 s ahead of the database's, then 30 s behind, then 3 s behind
(libfaketime, Debian's faketime, on a pool of its own beside the test stack's): its writes apply
once or are refused as not applied (a skew beyond call_budget_ms refuses them all), every look at
a call (answered by the stack's own pool, on a true clock) is right, and the skewed pool's
/metrics shows the skew (keeper_database_clock_offset_seconds; the alert
KeeperClockSkew's case is in tests/monitoring). docs/operations.md, "Clocks".

Speaks FastCGI to the skewed pool itself (tests/harness/fastcgi.py); asks /call-outcome through
the stack's nginx. Needs scripts/test's stack (KEEPER_TEST_*)."""
import json
import os
import re
import shutil
import tempfile
import time
import unittest
import urllib.request
import uuid

import private_stack
from harness import wait
from harness.fastcgi import get as fastcgi_get
from harness.test_stack import sql

FCGI = os.environ["KEEPER_TEST_FCGI"]
STATE = os.environ["KEEPER_TEST_STATE"]
PORT = os.environ["KEEPER_TEST_PORT"]
SESSION = f"skew-{uuid.uuid4().hex}"
PERMITS = "/AccountApi.asmx/SetAccountPermits"
OFFSET = re.compile(r"^keeper_database_clock_offset_seconds (-?[0-9.]+)$", re.M)


def request_id(ago=0.0):
    """An id as nginx makes it for a call it first saw `ago` seconds before now (a true clock)."""
    return f"{int((time.time() - ago) * 1000):013d}{uuid.uuid4().hex[:19]}"


class SkewedPool:
    """keeper-fcgi with its clock moved by `offset` (faketime's "+30s", "-30s"), on sockets of its
    own, against the stack's database as the workers' role."""

    def __init__(self, offset):
        self.dir = tempfile.mkdtemp(prefix="keeper-skewed-pool-")
        self.socket = f"{self.dir}/keeper.sock"
        env = dict(os.environ, KEEPER_CONFIG="/dev/null", KEEPER_WORKERS="1", KEEPER_THREADS="4",
                   KEEPER_DATABASE_URL=f"host={STATE}/run dbname=keeper user=keeper_worker",
                   FAKETIME_DONT_FAKE_MONOTONIC="1",
                   # libfaketime is preloaded before the sanitizers' runtime in the ASan pass.
                   ASAN_OPTIONS="verify_asan_link_order=0:detect_leaks=0")
        # faketime runs the pool as its child: the pool's group is stopped, not faketime alone.
        self.pool = private_stack.Pool(["faketime", "-f", offset, FCGI, "--listen", self.socket,
                                       "--retry-listen", f"{self.dir}/keeper-retry.sock"],
                                      env=env, socket=self.socket)
        if not wait.until(lambda: "ok" in self.get("/health", ""), 10, step=0.05):
            self.stop()
            raise AssertionError("the skewed pool did not become healthy")

    def get(self, path, query, rid=None):
        try:
            return fastcgi_get(self.socket, path, query, rid or request_id())
        except OSError:
            return ""

    def offset(self):
        found = OFFSET.search(self.get("/metrics", ""))
        return float(found.group(1)) if found else None

    def stop(self):
        self.pool.stop(10)
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.stop()


def permits(pool, rid):
    return pool.get(PERMITS, f"sessionId={SESSION}&acceptPayments=true&acceptInvoices=false&acceptMessages=true", rid)


def audit_rows(rid):
    return int(sql(f"SELECT count(*) FROM audit_log WHERE request_id = '{rid}'"))


def look(rid):
    """/call-outcome through the stack's nginx and its pool, on a true clock."""
    url = f"http://127.0.0.1:{PORT}/call-outcome?sessionId={SESSION}&requestId={rid}"
    with urllib.request.urlopen(url, timeout=15) as r:
        return json.load(r)


class ClockSkew(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        sql(f"INSERT INTO logins (login, shared_secret) VALUES ('{SESSION}', 's');"
            f"INSERT INTO sessions (session_hash, login_id, authenticated_at) "
            f"SELECT keeper_session_hash('{SESSION}'), id, now() FROM logins WHERE login = '{SESSION}'")

    def refused_and_decided(self, pool):
        """Every write refused "not applied", nothing written, and its look "none"."""
        rid = request_id()
        answer = permits(pool, rid)
        self.assertIn("Status: 503", answer)
        self.assertIn("not applied", answer)
        self.assertEqual(audit_rows(rid), 0)
        # Its look, by a true clock, after the call's final time: "none", decided; the same call
        # again changes nothing.
        old = request_id(ago=17)
        self.assertIn("Status: 503", permits(pool, old))
        self.assertEqual(look(old)["outcome"], "none")
        self.assertIn("Status: 503", permits(pool, old))
        self.assertEqual(audit_rows(old), 0)

    def test_a_host_30_s_ahead_refuses_every_write_as_not_applied_and_shows_it(self):
        # Ahead of nginx's clock by more than the budget: each call's budget looks spent on arrival.
        with SkewedPool("+30s") as pool:
            self.assertAlmostEqual(pool.offset(), -30.0, delta=2.0)  # the database's clock minus the host's
            self.refused_and_decided(pool)

    def test_a_host_30_s_behind_is_refused_by_the_database_and_shows_it(self):
        # The deadline the worker passes is by its own clock, 30 s early to the database's: KD001.
        with SkewedPool("-30s") as pool:
            self.assertAlmostEqual(pool.offset(), 30.0, delta=2.0)
            self.refused_and_decided(pool)

    def test_a_host_3_s_behind_applies_each_write_once(self):
        with SkewedPool("-3s") as pool:
            self.assertAlmostEqual(pool.offset(), 3.0, delta=1.0)
            rid = request_id()
            self.assertIn(">0</int>", permits(pool, rid))
            self.assertEqual(audit_rows(rid), 1)
            seen = look(rid)
            self.assertEqual((seen["outcome"], seen["result"]), ("recorded", 0))
            self.assertIn(">0</int>", permits(pool, request_id()))


if __name__ == "__main__":
    unittest.main(verbosity=2)
