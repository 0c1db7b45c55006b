"""When nginx answers for keeper, the client still gets its transport's shape, and says what it knows.

Starts nginx of its own with the shipped keeper-locations.conf and keeper-upstream.conf, three of
them, each with the upstreams' sockets pointed elsewhere: one where no pool listens (nothing
reaches a worker: 503 "not applied" with Retry-After), one whose pool and retry socket read each
request and close without an answer (sent, then cut off: sent again to the retry socket only, then
502 "outcome unknown"), and one whose sockets never answer (504). Checks each transport's answer:
a SOAP 1.1 / 1.2 server fault that parses as XML, a text line for GET and POST, 413 as text for an
oversized body (JSON for a JSON call), nosniff on every answer, never nginx's HTML page. Another
nginx, with too few connections to reach its pool at all, answers "not applied" too, never its own
500 page.
"""
import os
import re
import shutil
import socket
import ssl
import subprocess
import tempfile
import threading
import time
import unittest
import ipaddress
import json
import random
import xml.dom.minidom

SOURCE = os.environ["KEEPER_TEST_SOURCE_DIR"]
import nginx_conf  # the one writer of a test nginx's files (scripts/lib, on PYTHONPATH)
import private_stack  # the one starter of a test's processes (scripts/lib)
from harness import web
PORT = 18084
SLOW_PORT = 18085
CUT_PORT = 18086
SCARCE_PORT = 18088
TIMEOUT_PORT = 18089
MARKED_PORT = 18094
MARKED_SCARCE_PORT = 18095
BEHIND_PROXY_PORT = 18096

SOAP11 = {"Content-Type": "text/xml; charset=utf-8", "SOAPAction": '"http://tempuri.org/GetUtcNow"'}
SOAP12 = {"Content-Type": "application/soap+xml; charset=utf-8"}
FORM = {"Content-Type": "application/x-www-form-urlencoded"}
JSON = {"Content-Type": "application/json; charset=utf-8"}
ENVELOPE11 = (b'<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>'
              b'<GetUtcNow xmlns="http://tempuri.org/" /></soap:Body></soap:Envelope>')
# nginx's words for a 502, a 503 and a 504 (keeper-errors.conf, in keeper's words), with the request id.
UNKNOWN = ("so the outcome of the call is unknown (request id %s): it may or may not have been applied. Repeat it "
           "only with the same Idempotency-Key, or check it at /call-outcome with this request id before repeating it.")
FAILED = "The service failed before it answered, " + UNKNOWN
NOT_APPLIED = ("The call was not applied (request id %s): the service is unavailable. Nothing was changed; it may "
               "be repeated after Retry-After.")
TIMED_OUT = "The service did not answer in time, " + UNKNOWN
ENVELOPE12 = ENVELOPE11.replace(b"http://schemas.xmlsoap.org/soap/envelope/", b"http://www.w3.org/2003/05/soap-envelope")


def capture_json_answer(method, path, status, headers, body):
    """Appends a JSON answer to KEEPER_TEST_JSON_CAPTURE, as the C++ tests' client does, for
    e2e.openapi to check against docs/openapi.json."""
    capture = os.environ.get("KEEPER_TEST_JSON_CAPTURE")
    if not capture or not (headers.get("Content-Type") or "").startswith("application/json"):
        return
    record = {"method": method, "target": path, "status": status, "jsonerror": headers.get("jsonerror") or "",
              "body": body.decode("utf-8", "replace")}
    with open(capture, "a", encoding="utf-8") as f:
        f.write(json.dumps(record, ensure_ascii=False) + "\n")


def call(port, path, headers=None, body=None, source="127.0.0.1"):
    """One request; returns (status, headers, body). source: the client address to call from."""
    status, answer_headers, answer = web.call(port, path, headers=headers, body=body, source=source, timeout=10)
    capture_json_answer("POST" if body is not None else "GET", path, status, answer_headers, answer)
    return status, answer_headers, answer


def upstreams(directory, retry, pool):
    """The shipped keeper-upstream.conf, written into directory, with its retry socket at retry and
    its pool's (kept and fresh) at pool; returns its path."""
    os.makedirs(directory, exist_ok=True)
    return nginx_conf.shipped("keeper-upstream.conf", f"{directory}/keeper-upstream.conf",
                              [("unix:/run/keeper/keeper-retry.sock", f"unix:{retry}"),
                               ("unix:/run/keeper/keeper.sock", f"unix:{pool}")])


def cut_end(path):
    """A socket at path that reads each request and closes without an answer, as a worker that died
    with it, counting them ({"socket", "requests"})."""
    end = {"socket": socket.socket(socket.AF_UNIX), "requests": 0}
    end["socket"].bind(path)
    os.chmod(path, 0o777)
    end["socket"].listen(64)

    def cut_connections():
        while True:
            try:
                conn, _ = end["socket"].accept()
            except OSError:
                return
            conn.settimeout(2)
            try:
                while b"\x05\x00\x01\x00\x00" not in conn.recv(65536):  # until an empty FCGI_STDIN record
                    pass
            except OSError:
                pass
            end["requests"] += 1
            conn.close()

    threading.Thread(target=cut_connections, daemon=True).start()
    return end


class NginxAnswersForKeeper(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="keeper-nginx-faults-")
        os.chmod(cls.dir, 0o755)
        # A listening socket that accepts and never answers: nginx times out (504).
        cls.silent = socket.socket(socket.AF_UNIX)
        cls.silent.bind(f"{cls.dir}/silent.sock")
        os.chmod(f"{cls.dir}/silent.sock", 0o777)
        cls.silent.listen(64)
        cls.held = []
        threading.Thread(target=cls.hold_connections, daemon=True).start()
        # Sockets that read a request and close without an answer: a worker that died with it.
        cls.cut = {name: cut_end(f"{cls.dir}/{name}.sock") for name in ("cut", "cut-retry")}
        nginx_conf.shipped("keeper-locations.conf", f"{cls.dir}/keeper-locations-1s.conf",
                           [("fastcgi_read_timeout    30s;", "fastcgi_read_timeout    1s;")])
        # Four nginx, each with the shipped upstreams pointed at its own sockets, and one error and
        # access log.
        logs = {"error_log": f"{cls.dir}/error.log", "access_log": f"{cls.dir}/access.log keeper"}
        cls.nginx = {}

        def site(name, port, pool, retry, server="", locations=f"{SOURCE}/nginx/keeper-locations.conf", more=""):
            """An nginx of its own, the shipped upstreams pointed at pool and retry, serving port."""
            cls.nginx[name] = f"{cls.dir}/{name}"
            private_stack.start_nginx(cls.nginx[name], f"""
    include {upstreams(cls.nginx[name], f"{cls.dir}/{retry}", f"{cls.dir}/{pool}")};{more}
    server {{
        listen 127.0.0.1:{port};{server}
        include {SOURCE}/nginx/keeper-errors.conf; include {locations};
    }}
""", port, **logs)

        site("nobody", PORT, "nobody-listens.sock", "nobody-listens-retry.sock", more=f"""
    upstream silent_pool {{ server unix:{cls.dir}/silent.sock; }}
    server {{
        listen 127.0.0.1:{SLOW_PORT};
        location ~ \\.asmx {{ fastcgi_pass silent_pool; fastcgi_read_timeout 1s; }}
        include {SOURCE}/nginx/keeper-errors.conf; include {SOURCE}/nginx/keeper-locations.conf;
    }}""")
        # A site behind a proxy of the operator's (keeper-limits.conf): nginx takes the client's
        # address from X-Forwarded-For (ngx_http_realip_module), so a test names any address, IPv6
        # ones too, and reads back the block the limits count it under.
        site("proxied", BEHIND_PROXY_PORT, "nobody-listens.sock", "nobody-listens-retry.sock", server="""
        set_real_ip_from 127.0.0.1;
        real_ip_header X-Forwarded-For;
        location = /client-block { return 200 "$keeper_client_block"; }""")
        site("cut", CUT_PORT, "cut.sock", "cut-retry.sock")
        # The shipped locations with a read timeout of 1 s instead of 30 s.
        site("timeout", TIMEOUT_PORT, "silent.sock", "silent.sock", locations=f"{cls.dir}/keeper-locations-1s.conf")

    def access_lines(self):
        """The access log's lines (the shipped `keeper` format) by request id."""
        time.sleep(0.1)
        with open(f"{self.dir}/access.log") as f:
            return {m.group(1): line for line in f for m in [re.search(r"request_id=([0-9a-f]{32})", line)] if m}

    @classmethod
    def hold_connections(cls):
        while True:
            try:
                conn, _ = cls.silent.accept()
            except OSError:
                return
            cls.held.append(conn)

    @classmethod
    def tearDownClass(cls):
        for directory in cls.nginx.values():
            private_stack.stop_nginx(directory)
        cls.silent.close()
        for end in cls.cut.values():
            end["socket"].close()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def assert_fault(self, status, headers, body, content_type, code):
        self.assertEqual(status, 500, body)
        self.assertEqual(headers["Content-Type"], content_type)
        self.assertEqual(headers["X-Content-Type-Options"], "nosniff")
        doc = xml.dom.minidom.parseString(body)  # well-formed, or this raises
        self.assertIn(code, body.decode())
        self.assertTrue(doc.getElementsByTagName("soap:Fault"))

    def assert_text(self, status, headers, body, expected_status):
        self.assertEqual(status, expected_status, body)
        self.assertEqual(headers["Content-Type"], "text/plain; charset=utf-8")
        self.assertEqual(headers["X-Content-Type-Options"], "nosniff")
        self.assertTrue(body.endswith(b"\r\n") and body.count(b"\n") == 1, body)
        self.assertNotIn(b"<html", body.lower())

    def test_soap11_gets_a_soap11_server_fault(self):
        for port in (PORT, CUT_PORT):
            self.assert_fault(*call(port, "/GlobalApi.asmx", SOAP11, ENVELOPE11), "text/xml; charset=utf-8", "soap:Server")

    def test_soap12_gets_a_soap12_receiver_fault(self):
        for port in (PORT, CUT_PORT):
            self.assert_fault(*call(port, "/GlobalApi.asmx", SOAP12, ENVELOPE12), "application/soap+xml; charset=utf-8",
                              "soap:Receiver")

    def test_get_and_post_get_a_text_line_503_when_nothing_reached_a_worker_and_502_when_cut_off(self):
        self.assert_text(*call(PORT, "/GlobalApi.asmx/GetUtcNow"), 503)
        self.assert_text(*call(PORT, "/GlobalApi.asmx/GetUtcNow", FORM, b""), 503)
        self.assert_text(*call(CUT_PORT, "/GlobalApi.asmx/GetUtcNow"), 502)
        self.assert_text(*call(CUT_PORT, "/GlobalApi.asmx/GetUtcNow", FORM, b""), 502)

    def test_a_request_that_never_reached_a_worker_is_not_applied_and_is_not_sent_again(self):
        """No pool listens: nothing of the request left nginx, so every shape says it was not
        applied, names the request id, and carries Retry-After; nginx does not try the retry socket."""
        answers = [call(PORT, "/AccountApi.asmx/SetAccountPermitsEx?sessionId=a&acceptPayments=true"),
                   call(PORT, "/GlobalApi.asmx", SOAP11, ENVELOPE11), call(PORT, "/GlobalApi.asmx", SOAP12, ENVELOPE12),
                   call(PORT, "/GlobalApi.asmx/GetUtcNow", FORM, b""), call(PORT, "/GlobalApi.asmx/GetUtcNow", JSON, b"{}")]
        for status, headers, body in answers:
            with self.subTest(status=status, content_type=headers["Content-Type"]):
                self.assertIn(NOT_APPLIED % headers["X-Request-Id"], body.decode())
                self.assertEqual(headers["Retry-After"], "1")
                self.assertEqual(headers["X-Content-Type-Options"], "nosniff")
                # nginx's own answers carry the trace too (a new one: the request id).
                self.assertTrue(headers["traceresponse"].startswith(f"00-{headers['X-Request-Id']}-"), headers["traceresponse"])
        logged = self.access_lines()
        for status, headers, body in answers:
            line = logged[headers["X-Request-Id"]]
            self.assertIn("nobody-listens.sock", line)  # upstream_addr: the pool's socket, twice
            self.assertNotIn("nobody-listens-retry.sock", line)

    def test_a_request_cut_off_after_it_left_nginx_goes_again_to_the_retry_socket_only(self):
        before = (self.cut["cut"]["requests"], self.cut["cut-retry"]["requests"])
        status, headers, body = call(CUT_PORT, "/AccountApi.asmx/SetAccountPermitsEx?sessionId=a&acceptPayments=true")
        self.assertEqual(status, 502, body)
        self.assertIn(FAILED % headers["X-Request-Id"], body.decode())
        self.assertNotIn("Retry-After", headers)
        time.sleep(0.2)  # the cut-off ends count their requests
        self.assertEqual((self.cut["cut"]["requests"] - before[0], self.cut["cut-retry"]["requests"] - before[1]), (1, 2),
                         "once to the pool, then twice to its retry socket")

    def assert_json(self, status, headers, body, expected_status, message):
        self.assertEqual(status, expected_status, body)
        self.assertEqual(headers["Content-Type"], "application/json; charset=utf-8")
        self.assertEqual(headers["jsonerror"], "true")
        self.assertEqual(headers["X-Content-Type-Options"], "nosniff")
        self.assertEqual(json.loads(body), {"Message": message})

    def test_json_gets_asp_net_ajax_errors(self):
        status, headers, body = call(PORT, "/GlobalApi.asmx/GetUtcNow", JSON, b"{}")
        self.assert_json(status, headers, body, 503, NOT_APPLIED % headers["X-Request-Id"])
        status, headers, body = call(CUT_PORT, "/GlobalApi.asmx/GetUtcNow", JSON, b"{}")
        self.assert_json(status, headers, body, 502, FAILED % headers["X-Request-Id"])
        status, headers, body = call(SLOW_PORT, "/GlobalApi.asmx/GetUtcNow", JSON, b"{}")
        self.assert_json(status, headers, body, 504, TIMED_OUT % headers["X-Request-Id"])

    def test_no_answer_after_the_request_left_nginx_tells_a_client_to_simply_try_again(self):
        """nginx cannot know whether keeper applied a write before the 502 or 504: every shape says
        the outcome is unknown, names the request id, and says how to repeat safely."""
        answers = [call(CUT_PORT, "/AccountApi.asmx/SetAccountPermitsEx?sessionId=a&acceptPayments=true"),
                   call(SLOW_PORT, "/AccountApi.asmx/SetAccountPermitsEx?sessionId=a&acceptPayments=true"),
                   call(CUT_PORT, "/GlobalApi.asmx", SOAP11, ENVELOPE11), call(SLOW_PORT, "/GlobalApi.asmx", SOAP12, ENVELOPE12),
                   call(CUT_PORT, "/GlobalApi.asmx/GetUtcNow", FORM, b"")]
        for status, headers, body in answers:
            with self.subTest(status=status, content_type=headers["Content-Type"]):
                text = body.decode()
                self.assertIn("outcome of the call is unknown", text)
                self.assertIn(f"request id {headers['X-Request-Id']}", text)
                self.assertIn("same Idempotency-Key", text)
                self.assertNotIn("; try again", text)

    def test_an_oversized_body_gets_413_as_text_or_as_json_for_json(self):
        for headers in (SOAP11, SOAP12, FORM):
            self.assert_text(*call(PORT, "/GlobalApi.asmx", headers, b"x" * 70000), 413)
        self.assert_json(*call(PORT, "/GlobalApi.asmx/GetUtcNow", JSON, b"x" * 70000), 413,
                         "The request body is larger than 65536 bytes.")

    def test_a_timeout_is_a_fault_for_soap_and_504_for_get(self):
        self.assert_fault(*call(SLOW_PORT, "/GlobalApi.asmx", SOAP11, ENVELOPE11), "text/xml; charset=utf-8", "soap:Server")
        self.assert_text(*call(SLOW_PORT, "/GlobalApi.asmx/GetUtcNow"), 504)

    def test_credential_calls_are_limited_per_address_and_other_calls_are_not(self):
        auth = "/SimpleAuthApi.asmx/Authenticate?sessionId=s&login=l&authHash=h"
        remote = "127.0.0.2"  # another address of the loopback: a client, not this host itself
        started = time.monotonic()
        codes = [call(PORT, auth, source=remote)[0] for _ in range(120)]
        elapsed = time.monotonic() - started
        self.assertNotIn(429, codes[:40])  # the burst passes (to a pool that is down here: 503)
        # At most the burst and 10 a second got through (however slow this machine is today).
        self.assertLess(elapsed, 6, "too slow to tell")
        self.assertLessEqual(120 - codes.count(429), 40 + 10 * elapsed + 2, codes)
        self.assertGreater(codes.count(429), 0)
        # What a limited client gets (asked again at once, so the limit still holds).
        limited = next(r for r in (call(PORT, auth, source=remote) for _ in range(20)) if r[0] == 429)
        self.assert_text(*limited, 429)
        self.assertEqual(limited[1]["Retry-After"], "1")
        self.assertNotIn(429, [call(PORT, auth, source="127.0.0.3")[0] for _ in range(20)])  # per address
        self.assertNotIn(429, [call(PORT, auth)[0] for _ in range(120)])  # this host's own callers
        soap = (b'<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>'
                b'<SubscribeAppWithTagAndLocale xmlns="http://tempuri.org/" /></soap:Body></soap:Envelope>')
        action = dict(SOAP11, SOAPAction='"http://tempuri.org/SubscribeAppWithTagAndLocale"')
        statuses = [call(PORT, "/PushApi.asmx", action, soap, source="127.0.0.4") for _ in range(120)]
        limited = [s for s in statuses if b"Too many requests" in s[2]]
        self.assertGreater(len(limited), 0)
        self.assert_fault(*limited[0], "text/xml; charset=utf-8", "soap:Client")
        others = [call(PORT, "/GlobalApi.asmx/GetUtcNow", source="127.0.0.5")[0] for _ in range(120)]
        self.assertNotIn(429, others)
        # The shapes routed by the body, which nginx does not read: SOAP 1.2 without an action and
        # SOAP 1.1 with an empty SOAPAction count as the credential call (keeper-limits.conf).
        soap12 = soap.replace(b"http://schemas.xmlsoap.org/soap/envelope/", b"http://www.w3.org/2003/05/soap-envelope")
        for n, (headers, body) in enumerate(((SOAP12, soap12), (dict(SOAP11, SOAPAction='""'), soap)), start=7):
            with self.subTest(content_type=headers["Content-Type"]):
                statuses = [call(PORT, "/PushApi.asmx", headers, body, source=f"127.0.0.{n}") for _ in range(120)]
                self.assertGreater(len([s for s in statuses if b"Too many requests" in s[2]]), 0)
        # An action naming another operation is not the credential call (a body that is would be a
        # client fault: docs/api-decisions.md, "SOAP routing and decoding").
        other = dict(SOAP12, **{"Content-Type": 'application/soap+xml; charset=utf-8; action="http://tempuri.org/MarkPushSmsAsDelivered"'})
        statuses = [call(PORT, "/PushApi.asmx", other, soap12, source="127.0.0.9") for _ in range(120)]
        self.assertEqual([s for s in statuses if b"Too many requests" in s[2]], [])

    def test_an_ipv6_client_is_limited_by_its_slash_64(self):
        auth = "/SimpleAuthApi.asmx/Authenticate?sessionId=s&login=l&authHash=h"
        codes = [call(BEHIND_PROXY_PORT, auth, {"X-Forwarded-For": f"2001:db8:40:64::{n:x}"})[0] for n in range(1, 61)]
        self.assertNotIn(429, codes[:40])
        self.assertIn(429, codes[40:])  # 60 addresses of one /64 are one client
        others = [call(BEHIND_PROXY_PORT, auth, {"X-Forwarded-For": f"2001:db8:40:{n:x}::1"})[0] for n in range(1, 61)]
        self.assertNotIn(429, others)  # one call from each of 60 /64s

    def test_the_block_nginx_counts_is_an_ipv4_address_or_an_ipv6_slash_64(self):
        def expected(address):
            ip = ipaddress.ip_address(address)
            if ip.version == 4:
                return str(ip)
            if ip.ipv4_mapped:
                return str(ip.ipv4_mapped)
            return ":".join(f"{int(group, 16):x}" for group in ip.exploded.split(":")[:4])

        rng = random.Random(64)
        samples = ["198.51.100.7", "::ffff:198.51.100.7", "::1", "::", "1::", "2001:db8::", "2001:db8::1",
                   "2001:db8:0:0:1::", "2001:db8::1:0:0:1", "2001:0db8:0000:0001::1", "::2:3:4:5:6", "1::3:4:5:6:7",
                   "::2:3:4:5:6:7:8", "1:2:3::5:6:7:8", "1:2::4:5:6:7:8", "fe80::1:2:3:4", "2001:db8:aaaa:bbbb::"]
        for _ in range(300):  # addresses with runs of zeros anywhere, in nginx's form and in others
            groups = [rng.choice([0, 0, 0, rng.randrange(1, 0x10000)]) for _ in range(8)]
            address = ipaddress.IPv6Address(":".join(f"{g:x}" for g in groups))
            samples += [str(address), address.exploded]
        for address in samples:
            with self.subTest(address=address):
                status, _, body = call(BEHIND_PROXY_PORT, "/client-block", {"X-Forwarded-For": address})
                self.assertEqual((status, body.decode()), (200, expected(address)))

    def test_looks_at_a_calls_outcome_have_a_limit_of_their_own(self):
        look = "/call-outcome?sessionId=s&requestId=" + "1" * 13 + "0" * 19
        auth = "/SimpleAuthApi.asmx/Authenticate?sessionId=s&login=l&authHash=h"
        # Clients behind one address that poll as Retry-After: 1 tells them: 100 looks in a second.
        looks = [call(BEHIND_PROXY_PORT, look, {"X-Forwarded-For": "203.0.113.80"})[0] for _ in range(100)]
        self.assertNotIn(429, looks)
        self.assertNotIn(429, [call(BEHIND_PROXY_PORT, auth, {"X-Forwarded-For": "203.0.113.80"})[0]
                               for _ in range(40)])  # sign-in's allowance is untouched
        looks = [call(BEHIND_PROXY_PORT, look, {"X-Forwarded-For": "203.0.113.81"})[0] for _ in range(600)]
        self.assertIn(429, looks)  # and the looks' own is a limit

    def test_no_credential_reaches_the_error_log_for_any_reason_nginx_writes_one(self):
        """nginx's error log would write a call's request line, query string and all: each reason
        is provoked with credentials in the query, and none reaches it. The access log records
        each failure instead (its status and upstream status), without the query."""
        def secret(n):
            return f"SECRET{n}{os.getpid()}x"
        query = (f"sessionId={secret(1)}&login=l&authHash={secret(2)}&tranId=1&protectionCode={secret(3)}"
                 f"&profileId=1&taskId=1&code={secret(4)}")
        reasons = {
            "nothing listens (connect refused)": [call(PORT, f"/SimpleAuthApi.asmx/Authenticate?{query}")],
            "cut off after it left (premature close)": [call(CUT_PORT, f"/AccountApi.asmx/FinishCodeProtectedOperation?{query}")],
            "no answer in time (timeout)": [call(TIMEOUT_PORT, f"/TelepayApi.asmx/TelepaySchedulerConfirmCreate?{query}")],
            "over the credential limit": [call(PORT, f"/SimpleAuthApi.asmx/Authenticate?{query}", source="127.0.0.6")
                                          for _ in range(60)],
            "a body over the limit": [call(PORT, f"/SimpleAuthApi.asmx/Authenticate?{query}", FORM, b"x" * 70000)],
            "the outcome look, nothing listens": [call(PORT, f"/call-outcome?sessionId={secret(1)}&requestId={'1' * 32}")],
        }
        expected = {"nothing listens (connect refused)": 503, "cut off after it left (premature close)": 502,
                    "no answer in time (timeout)": 504, "over the credential limit": 429, "a body over the limit": 413,
                    "the outcome look, nothing listens": 503}
        logged = self.access_lines()
        for reason, answers in reasons.items():
            with self.subTest(reason):
                statuses = {status for status, _, _ in answers}
                self.assertIn(expected[reason], statuses)
                line = logged[next(h["X-Request-Id"] for s, h, _ in answers if s == expected[reason])]
                self.assertIn(f'" {expected[reason]} ', line)
                self.assertNotIn("SECRET", line)
        time.sleep(0.1)
        with open(f"{self.dir}/error.log") as f:
            log = f.read()
        self.assertEqual([n for n in range(1, 5) if secret(n) in log], [], "a credential in nginx's error log")
        with open(f"{self.dir}/access.log") as f:
            self.assertNotIn("SECRET", f.read())

    def test_an_unknown_asmx_is_keepers_404_line(self):
        """keeper's own answer for a path it does not serve, word for word: a text line, or
        {"Message"} for JSON (keeper-errors.conf, generated)."""
        status, headers, body = call(PORT, "/Nope.asmx")
        self.assert_text(status, headers, body, 404)
        self.assertEqual(body, b"No service here.\r\n")
        self.assert_json(*call(PORT, "/Nope.asmx/Op", JSON, b"{}"), 404, "No service here.")


class NginxOutOfConnections(unittest.TestCase):
    """An nginx whose worker has connections for its listener, its channel to the master and one
    client, none for the pool: each call fails inside nginx ("worker_connections are not enough
    while connecting to upstream", nginx's own 500) before anything of it leaves. Under Debian's
    untuned limits that is what a flood of clients meets (docs/operations.md, "Tuning")."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="keeper-nginx-scarce-")
        os.chmod(cls.dir, 0o755)
        cls.pool = socket.socket(socket.AF_UNIX)
        cls.pool.bind(f"{cls.dir}/pool.sock")
        os.chmod(f"{cls.dir}/pool.sock", 0o777)
        cls.pool.listen(64)
        cls.pool.setblocking(False)
        conf = f"""
    include {upstreams(cls.dir, f"{cls.dir}/pool.sock", f"{cls.dir}/pool.sock")};
    server {{
        listen 127.0.0.1:{SCARCE_PORT};
        include {SOURCE}/nginx/keeper-errors.conf; include {SOURCE}/nginx/keeper-locations.conf;
    }}
"""
        private_stack.start_nginx(cls.dir, conf, SCARCE_PORT, workers=1, connections=3,
                    access_log=f"{cls.dir}/access.json keeper_json")

    @classmethod
    def tearDownClass(cls):
        private_stack.stop_nginx(cls.dir)
        cls.pool.close()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_a_call_nginx_cannot_pass_is_not_applied_in_its_transports_shape(self):
        answers = {"HTTP GET": call(SCARCE_PORT, "/AccountApi.asmx/SetAccountPermitsEx?sessionId=a&acceptPayments=true"),
                   "SOAP 1.1": call(SCARCE_PORT, "/GlobalApi.asmx", SOAP11, ENVELOPE11),
                   "SOAP 1.2": call(SCARCE_PORT, "/GlobalApi.asmx", SOAP12, ENVELOPE12),
                   "HTTP POST": call(SCARCE_PORT, "/GlobalApi.asmx/GetUtcNow", FORM, b""),
                   "JSON": call(SCARCE_PORT, "/GlobalApi.asmx/GetUtcNow", JSON, b"{}")}
        for shape, (status, headers, body) in answers.items():
            with self.subTest(shape=shape):
                self.assertEqual(status, 500 if shape.startswith("SOAP") else 503, body)
                self.assertIn(NOT_APPLIED % headers["X-Request-Id"], body.decode())
                self.assertEqual(headers["Retry-After"], "1")
        with self.assertRaises(BlockingIOError, msg="nothing reached the pool's socket"):
            self.pool.accept()
        with open(f"{self.dir}/error.log") as f:
            self.assertNotIn("sessionId", f.read())  # the call's line is not there (keeper-locations.conf)
        # The shipped JSON access log (keeper-log-format.conf, keeper_json): one object a line, the
        # request id the client got, the query string never.
        time.sleep(0.1)
        with open(f"{self.dir}/access.json") as f:
            lines = [json.loads(line) for line in f]
        logged = {line["request_id"]: line for line in lines}
        for shape, (status, headers, body) in answers.items():
            with self.subTest(shape=shape):
                line = logged[headers["X-Request-Id"]]
                self.assertEqual(line["status"], status)
                self.assertNotIn("sessionId", line["uri"])
                self.assertIsInstance(line["request_time"], float)
                self.assertEqual(line["upstream_status"], "-", "no upstream was reached")


def tier_certificates(directory):
    """The tier's authority, a host's and the front's certificates (scripts/make-certs) in
    directory/tier."""
    tier = f"{directory}/tier"
    for name, addresses in (("ca", []), ("host", ["127.0.0.1", "localhost"]), ("front", ["front"])):
        subprocess.run([f"{SOURCE}/scripts/make-certs", tier, name, *addresses], check=True, capture_output=True)
    os.chmod(f"{tier}/front.key", 0o644)  # a throw-away key, read by this test's client


def tier_server(directory, port):
    """The shipped keeper-tier.conf (mutual TLS; the X-Keeper-* headers from the front alone) on
    127.0.0.1:port with the certificates of directory/tier, each replacement asserted
    (nginx_conf.shipped) so that a change of the shipped file cannot pass unnoticed."""
    tier = f"{directory}/tier"
    # The host's own loopback server on a port of this test's (80 may be taken).
    replacements = [("listen 10.0.2.11:8443", f"listen 127.0.0.1:{port}"), ("/etc/keeper/tier/", f"{tier}/"),
                    ("listen 127.0.0.1:80;", f"listen 127.0.0.1:{port + 100};"),
                    ("/var/log/nginx/keeper-access.log", f"{directory}/access.log"),
                    ("/var/log/nginx/keeper-error.log", f"{directory}/error.log"),
                    ("/etc/keeper/nginx/", f"{SOURCE}/nginx/")]
    return "    include " + nginx_conf.shipped("keeper-tier.conf", f"{directory}/keeper-tier.conf", replacements) + ";"


def front_call(port, tier, path, headers=None, body=None, client_certificate=True):
    """One request over the tier listener's TLS, as the front makes it (its certificate), or as a
    peer without one."""
    ctx = ssl.create_default_context(cafile=f"{tier}/ca.crt")
    if client_certificate:
        ctx.load_cert_chain(f"{tier}/front.crt", f"{tier}/front.key")
    return web.call(port, path, headers=headers, body=body, host="localhost", context=ctx, timeout=10)


class CallsTheFrontSentBefore(unittest.TestCase):
    """A call the front marks as sent before (X-Keeper-Sent-Before: 1) may have run on this host:
    its connection broke after something of it had left the front. When nothing of it reaches the
    host's retry socket (no pool listens there, its backlog is full), the host must neither send it
    to the pool's own socket, where it would run as a first attempt, nor answer "not applied"
    (docs/design.md, "In-doubt calls"). The pool's own socket here takes every request and closes
    it unanswered, counting them; the retry socket has no listener. A second nginx, out of
    connections, fails inside itself (its own 500) before anything of a marked call leaves it."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="keeper-nginx-marked-")
        os.chmod(cls.dir, 0o755)
        cls.pool = cut_end(f"{cls.dir}/pool.sock")
        cls.scarce = f"{cls.dir}/scarce"
        os.mkdir(cls.scarce)
        tier_certificates(cls.dir)
        shutil.copytree(f"{cls.dir}/tier", f"{cls.scarce}/tier")
        private_stack.start_nginx(cls.dir, cls.marked_http(cls.dir, MARKED_PORT), MARKED_PORT)
        # Connections for its two listeners (the tier's and the host's loopback one), the channel to
        # the master and one client, none for a pool.
        private_stack.start_nginx(cls.scarce, cls.marked_http(cls.scarce, MARKED_SCARCE_PORT), MARKED_SCARCE_PORT, workers=1,
                    connections=4)

    @classmethod
    def marked_http(cls, directory, port):
        return f"""
    include {upstreams(directory, f"{cls.dir}/nobody-listens-retry.sock", f"{cls.dir}/pool.sock")};
{tier_server(directory, port)}
"""

    @classmethod
    def tearDownClass(cls):
        private_stack.stop_nginx(cls.dir)
        private_stack.stop_nginx(cls.scarce)
        cls.pool["socket"].close()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def marked_calls(self, port, tier, marked=True):
        headers = {"X-Keeper-Sent-Before": "1"} if marked else {}
        return {"HTTP GET": front_call(port, tier, "/AccountApi.asmx/TopupPurseFromAtmCard?sessionId=a&amount=1", headers),
                "SOAP 1.1": front_call(port, tier, "/GlobalApi.asmx", dict(SOAP11, **headers), ENVELOPE11),
                "SOAP 1.2": front_call(port, tier, "/GlobalApi.asmx", dict(SOAP12, **headers), ENVELOPE12),
                "HTTP POST": front_call(port, tier, "/GlobalApi.asmx/GetUtcNow", dict(FORM, **headers), b""),
                "JSON": front_call(port, tier, "/GlobalApi.asmx/GetUtcNow", dict(JSON, **headers), b"{}")}

    def assert_outcome_unknown(self, answers):
        for shape, (status, headers, body) in answers.items():
            with self.subTest(shape=shape):
                self.assertEqual(status, 500 if shape.startswith("SOAP") else 502, body)
                self.assertIn(FAILED % headers["X-Request-Id"], body.decode())
                self.assertNotIn("Retry-After", headers)

    def test_a_marked_call_the_retry_socket_does_not_take_is_outcome_unknown_and_never_a_first_attempt(self):
        before = self.pool["requests"]
        answers = self.marked_calls(MARKED_PORT, f"{self.dir}/tier")
        self.assert_outcome_unknown(answers)
        time.sleep(0.2)  # the pool's end counts its requests
        self.assertEqual(self.pool["requests"] - before, 0, "a marked call reached the pool's own socket")
        with open(f"{self.dir}/access.log") as f:
            logged = f.read()
        for _, headers, _ in answers.values():
            line = next(line for line in logged.splitlines() if headers["X-Request-Id"] in line)
            self.assertNotIn("pool.sock ", line.replace("nobody-listens-retry.sock", ""))

    def test_an_unmarked_call_still_goes_to_the_pool_and_a_stranger_cannot_mark_one(self):
        """The control: the same calls unmarked (or marked by a peer without the front's certificate,
        which the listener refuses) are first attempts, and the pool's socket receives them."""
        before = self.pool["requests"]
        status, _, _ = front_call(MARKED_PORT, f"{self.dir}/tier", "/GlobalApi.asmx/GetUtcNow")
        self.assertEqual(status, 502)  # the pool's end closes every request unanswered: cut off
        status, _, _ = front_call(MARKED_PORT, f"{self.dir}/tier", "/GlobalApi.asmx/GetUtcNow",
                                  {"X-Keeper-Sent-Before": "1"}, client_certificate=False)
        self.assertEqual(status, 400)
        time.sleep(0.2)
        self.assertEqual(self.pool["requests"] - before, 1)

    def test_a_marked_call_nginx_fails_to_pass_is_outcome_unknown_not_not_applied(self):
        self.assert_outcome_unknown(self.marked_calls(MARKED_SCARCE_PORT, f"{self.scarce}/tier"))
        unmarked = self.marked_calls(MARKED_SCARCE_PORT, f"{self.scarce}/tier", marked=False)
        for shape, (status, headers, body) in unmarked.items():
            with self.subTest(shape=shape):
                self.assertIn(NOT_APPLIED % headers["X-Request-Id"], body.decode())


if __name__ == "__main__":
    unittest.main(verbosity=2)
