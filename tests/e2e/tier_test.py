"""A worker host's tier listener (nginx/keeper-tier.conf, docs/scaling.md, "The worker hosts' tier
listener"), as shipped: mutual TLS with an authority of the tier's own, and the X-Keeper-* headers
taken from the front alone.

scripts/test serves the stack's nginx with the shipped keeper-tier.conf on KEEPER_TEST_TIER_PORT
(scripts/lib/stack.sh, make_tier_certificates: the tier's authority, this host's and the front's
certificates, and a stranger's authority with a certificate of its own). Each header is also sent
to the plain port, where it must change nothing: the front is known by its certificate, never by
what a request says.
"""
import os
import re
import ssl
import time
import unittest
import uuid

from harness import wait, web
from harness.test_stack import PORT as PLAIN_PORT, STATE, sql

TIER_PORT = int(os.environ["KEEPER_TEST_TIER_PORT"])
TIER = os.path.join(STATE, "tier")


def context(cert_dir=None, name="front"):
    ctx = ssl.create_default_context(cafile=os.path.join(TIER, "ca.crt"))  # the host verified, by name
    if cert_dir:
        ctx.load_cert_chain(os.path.join(cert_dir, f"{name}.crt"), os.path.join(cert_dir, f"{name}.key"))
    return ctx


FRONT = context(TIER)
NO_CERTIFICATE = context()
STRANGER = context(os.path.join(TIER, "stranger"))
A_WORKER_HOST = context(TIER, "host")  # the tier's authority, another name than the front's


def authenticate_path(login):
    return f"/SimpleAuthApi.asmx/Authenticate?sessionId={uuid.uuid4()}&login={login}&authHash={'f' * 32}"


def call(path, headers=None, ctx=FRONT):
    """Over plain HTTP when ctx is None, else to the tier listener over TLS with ctx."""
    port, host = (PLAIN_PORT, "127.0.0.1") if ctx is None else (TIER_PORT, "localhost")
    status, answer_headers, body = web.call(port, path, headers=headers, host=host, context=ctx)
    return status, answer_headers, body.decode()


def log_line(file, request_id):
    """The line of `file` (in the stack's log directory) naming request_id, once it is written."""
    def find():
        with open(os.path.join(STATE, "log", file), encoding="utf-8", errors="replace") as f:
            return next((line for line in f if f"request_id={request_id}" in line), "")
    return wait.until(find, 2.5, step=0.05)


def fresh_request_id(seconds_ago=0.0):
    return f"{int((time.time() - seconds_ago) * 1000):013d}{uuid.uuid4().hex[:19]}"


class TierListener(unittest.TestCase):
    def test_a_peer_without_the_tiers_certificate_is_refused_before_any_call(self):
        for name, ctx in (("no certificate", NO_CERTIFICATE), ("another authority's", STRANGER)):
            login = f"tier-refused-{uuid.uuid4().hex[:8]}"
            status, _, _ = call(authenticate_path(login), ctx=ctx)
            self.assertEqual(status, 400, name)
            self.assertEqual(sql(f"SELECT count(*) FROM audit_calls WHERE login = '{login}'"), "0", name)
        status, _, _ = call(authenticate_path("tier-admitted"))
        self.assertEqual(status, 200)  # the same call with the front's certificate is served

    def test_a_worker_hosts_certificate_cannot_speak_as_the_front(self):
        login = f"tier-host-{uuid.uuid4().hex[:8]}"
        claimed = fresh_request_id()
        front_says = {"X-Keeper-Request-Id": claimed, "X-Keeper-Client-Addr": "203.0.113.9",
                      "X-Keeper-Client-Port": "40123", "X-Keeper-Sent-Before": "1"}
        status, _, body = call(authenticate_path(login), front_says, ctx=A_WORKER_HOST)
        self.assertEqual((status, body), (403, "Only the front is served here.\n"))
        self.assertEqual(sql(f"SELECT count(*) FROM audit_calls WHERE login = '{login}' OR request_id = '{claimed}'"),
                         "0")
        self.assertEqual(call("/GlobalApi.asmx/GetUtcNow", ctx=A_WORKER_HOST)[0], 403)  # nor any other call

    def test_the_front_names_the_request_id_and_no_one_else_does(self):
        login = f"tier-id-{uuid.uuid4().hex[:8]}"
        given = fresh_request_id()
        status, headers, _ = call(authenticate_path(login), {"X-Keeper-Request-Id": given})
        self.assertEqual(status, 200)
        self.assertEqual(headers["X-Request-Id"], given)
        self.assertEqual(sql(f"SELECT login FROM audit_calls WHERE request_id = '{given}'"), login)
        self.assertIn(f"request_id={given}", log_line("keeper.log", given))

        ignored = fresh_request_id()
        _, headers, _ = call(authenticate_path(login), {"X-Keeper-Request-Id": ignored}, ctx=None)
        self.assertNotEqual(headers["X-Request-Id"], ignored)
        malformed = "not-a-request-id"
        _, headers, _ = call(authenticate_path(login), {"X-Keeper-Request-Id": malformed})
        self.assertRegex(headers["X-Request-Id"], r"^\d{13}[0-9a-f]{19}$")

    def test_the_front_names_the_clients_address_and_no_one_else_does(self):
        _, headers, _ = call("/GlobalApi.asmx/GetUtcNow", {"X-Keeper-Client-Addr": "203.0.113.7"})
        self.assertTrue(log_line("nginx-access.log", headers["X-Request-Id"]).startswith("203.0.113.7 "))
        _, headers, _ = call("/GlobalApi.asmx/GetUtcNow", {"X-Keeper-Client-Addr": "203.0.113.7"}, ctx=None)
        self.assertTrue(log_line("nginx-access.log", headers["X-Request-Id"]).startswith("127.0.0.1 "))

    def test_the_front_names_the_clients_port_and_no_one_else_does(self):
        # With the address, the connection keeper knows a refused client by (REMOTE_PORT, the same
        # variable as the log's): the front's own port would name every client of the front as one.
        front = {"X-Keeper-Client-Addr": "203.0.113.7", "X-Keeper-Client-Port": "40123"}
        _, headers, _ = call("/GlobalApi.asmx/GetUtcNow", front)
        self.assertTrue(log_line("nginx-access.log", headers["X-Request-Id"]).rstrip().endswith(" client_port=40123"))
        _, headers, _ = call("/GlobalApi.asmx/GetUtcNow", dict(front, **{"X-Keeper-Client-Port": "40123x"}))
        self.assertTrue(log_line("nginx-access.log", headers["X-Request-Id"]).rstrip().endswith(" client_port="))
        _, headers, _ = call("/GlobalApi.asmx/GetUtcNow", front, ctx=None)
        port = re.search(r" client_port=(\d+)$", log_line("nginx-access.log", headers["X-Request-Id"]).rstrip())
        self.assertTrue(port and port.group(1) != "40123")  # the peer's own

    def test_the_call_s_deadline_counts_from_the_fronts_arrival(self):
        # The front's request id holds when the call reached it: past call_budget_ms (10 s) here.
        login = f"tier-late-{uuid.uuid4().hex[:8]}"
        late = fresh_request_id(seconds_ago=20)
        status, headers, body = call(authenticate_path(login), {"X-Keeper-Request-Id": late})
        self.assertEqual(status, 503, body)
        self.assertIn("not applied", body)
        self.assertTrue(headers["Retry-After"])
        self.assertEqual(sql(f"SELECT count(*) FROM audit_calls WHERE login = '{login}'"), "0")
        status, _, _ = call(authenticate_path(login), {"X-Keeper-Request-Id": late}, ctx=None)
        self.assertEqual(status, 200)  # from anyone else the header is ignored
        # A client's own edge time changes nothing, from the front or not: only the id's time counts.
        stale = f"{time.time() - 20:.3f}"
        for ctx in (FRONT, None):
            status, _, body = call(authenticate_path(login), {"X-Keeper-Edge-Msec": stale}, ctx=ctx)
            self.assertEqual(status, 200, body)

    def test_a_call_the_front_sent_before_goes_to_the_retry_socket(self):
        _, headers, _ = call(authenticate_path("tier-again"), {"X-Keeper-Sent-Before": "1"})
        self.assertIn("retried=true", log_line("keeper.log", headers["X-Request-Id"]))
        _, headers, _ = call(authenticate_path("tier-again"), {"X-Keeper-Sent-Before": "1"}, ctx=None)
        line = log_line("keeper.log", headers["X-Request-Id"])
        self.assertTrue(line)
        self.assertNotIn("retried=true", line)

    def test_the_listener_takes_tls_1_2_or_later_only(self):
        old = context(TIER)
        old.minimum_version = ssl.TLSVersion.TLSv1
        old.maximum_version = ssl.TLSVersion.TLSv1_1
        with self.assertRaises((ssl.SSLError, ConnectionError)):
            call("/GlobalApi.asmx/GetUtcNow", ctx=old)


if __name__ == "__main__":
    unittest.main(verbosity=2)
