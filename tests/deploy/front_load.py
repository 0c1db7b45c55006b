"""Writes through the front as a mobile client does, until the file STOP exists: each writer
authenticates a session of LOGIN, then sets its account permits again and again (a write each), on
a kept HTTPS connection. Then settles every call: one answered "outcome
unknown" is asked at /call-outcome, as its answer says, until it is not "pending" (60 s at most).
Prints one JSON line: calls, answered 0, "not applied" (503, which a client repeats), unknown and
how they resolved, calls with no answer at all (the connection closed with none), and the first
few of each kind that is not 0. The deploy tier's rolling upgrade (tests/deploy/hosts_test.sh).

Usage: front_load.py FRONT LOGIN SECRET STOP [WRITERS]"""
import http.client
import json
import os
import ssl
import sys
import threading
import time
import urllib.parse
import uuid

from harness.auth import auth_hash

FRONT, LOGIN, SECRET, STOP = sys.argv[1:5]
WRITERS = int(sys.argv[5]) if len(sys.argv) > 5 else 2
TLS = ssl._create_unverified_context()  # the test front's own authority: verification is not what is tested


def session_hash(session):
    return auth_hash(LOGIN, SECRET, session)


class Writer:
    def __init__(self):
        self.conn = None
        self.calls = []  # (op, session, status, request id, body)

    def get(self, path):
        """(status, request id, body); status 0: the connection closed with no answer (not sent
        again: the client cannot know whether the call left)."""
        if self.conn is None:
            self.conn = http.client.HTTPSConnection(FRONT, 443, timeout=60, context=TLS)
        try:
            self.conn.request("GET", path)
            r = self.conn.getresponse()
            body = r.read().decode(errors="replace")
            if r.getheader("Connection", "").lower() == "close":
                self.conn.close()
                self.conn = None
            return r.status, r.getheader("X-Request-Id", ""), body
        except (http.client.HTTPException, OSError) as e:
            self.conn.close()
            self.conn = None
            return 0, "", f"{type(e).__name__}: {e}"

    def call(self, op, session, path):
        status, rid, body = self.get(path)
        self.calls.append((op, session, status, rid, body))

    def run(self):
        # One session a writer, authenticated first (Authenticate is limited per client address,
        # keeper-limits.conf, as a client would not call it in a loop); then writes, paced as a
        # busy app's (about 50 a second a writer).
        session = f"roll-{uuid.uuid4().hex[:12]}"
        q = urllib.parse.urlencode({"sessionId": session, "login": LOGIN, "authHash": session_hash(session)})
        self.call("Authenticate", session, f"/SimpleAuthApi.asmx/Authenticate?{q}")
        n = 0
        while not os.path.exists(STOP):
            n += 1
            q = urllib.parse.urlencode({"sessionId": session, "acceptPayments": "true",
                                        "acceptInvoices": "true" if n % 2 else "false", "acceptMessages": "true"})
            self.call("SetAccountPermits", session, f"/AccountApi.asmx/SetAccountPermits?{q}")
            time.sleep(0.02)


def settle(writer, session, rid):
    """The outcome /call-outcome gives once it is not pending (60 s at most)."""
    for _ in range(60):
        q = urllib.parse.urlencode({"sessionId": session, "requestId": rid})
        status, _, body = writer.get(f"/call-outcome?{q}")
        if status == 200 and json.loads(body).get("outcome") != "pending":
            return json.loads(body).get("outcome", "?")
        time.sleep(1)
    return "pending"


def main():
    writers = [Writer() for _ in range(WRITERS)]
    threads = [threading.Thread(target=w.run) for w in writers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    summary = {"calls": 0, "ok": 0, "not_applied": 0, "unknown": 0, "resolved": {}, "no_answer": 0,
               "other": 0, "examples": []}
    for w in writers:
        for op, session, status, rid, body in w.calls:
            summary["calls"] += 1
            kind = "other"
            if status == 200 and ">0</int>" in body:
                kind = "ok"
            elif status == 0:
                kind = "no_answer"
            elif status == 503 and "not applied" in body:
                kind = "not_applied"
            elif "unknown" in body and rid:
                kind = "unknown"
                outcome = settle(w, session, rid)
                summary["resolved"][outcome] = summary["resolved"].get(outcome, 0) + 1
            summary[kind] += 1
            if kind != "ok" and len(summary["examples"]) < 5:
                summary["examples"].append(f"{op} {status} {rid} {body[:160]!r}")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
