"""/call-outcome says "none" only once no attempt of the call can still commit (docs/api-decisions.md,
"Checking a call's outcome"). An attempt that began in time holds the call's claim until its
transaction ends, and a commit waiting for the synchronous standby ends whenever the standby
answers, however long after the call's deadline (its worker frozen or cut off, so that no cancel
comes). Here a session of psql plays that attempt: it runs the call's function for the call's
request id, a minute old, and holds its transaction open; the look through the running stack must
say "pending" while it does, and "recorded" once it commits.

A request id is checked before any SQL: one dated far ahead, past what 13 digits hold, or fuzzed,
is a 400 naming requestId or a look's answer, never a 500."""
import json
import random
import subprocess
import time
import unittest
import uuid

from harness import web
from harness.auth import auth_hash
from harness.test_stack import PORT, DATABASE_URL, keeperctl


def get(path):
    status, _, body = web.call(PORT, path)
    return status, body.decode()


def new_session():
    login, secret, session = f"outcome-{uuid.uuid4().hex[:8]}", "outcome-secret-0123", str(uuid.uuid4())
    keeperctl("add-login", login, "-", secret=secret)
    digest = auth_hash(login, secret, session)
    status, body = get(f"/SimpleAuthApi.asmx/Authenticate?sessionId={session}&login={login}&authHash={digest}")
    assert status == 200 and ">0</int>" in body, body
    return session


def look(session, request_id):
    status, body = get(f"/call-outcome?sessionId={session}&requestId={request_id}")
    assert status == 200, body
    return json.loads(body)


class RequestIdsFromAnyone(unittest.TestCase):
    def test_no_request_id_is_a_server_error(self):
        session = new_session()
        month_ahead = f"{int((time.time() + 30 * 86400) * 1000):013d}{uuid.uuid4().hex[:19]}"
        year_2300 = f"{10413792000000}{uuid.uuid4().hex[:19]}"  # 14 digits of milliseconds
        for request_id in (month_ahead, year_2300, "9" * 13 + "f" * 19):
            with self.subTest(request_id=request_id):
                status, body = get(f"/call-outcome?sessionId={session}&requestId={request_id}")
                self.assertEqual(status, 400, body)
                self.assertIn("requestId", json.loads(body)["Message"])
        rng = random.Random(77)
        now = f"{int(time.time() * 1000):013d}{uuid.uuid4().hex[:19]}"
        statuses = set()
        for _ in range(200):  # a real id's characters changed, cut, doubled or shifted
            chars = list(now)
            for _ in range(rng.randint(1, 4)):
                at = rng.randrange(len(chars))
                chars[at] = rng.choice("0123456789abcdefABCDEF%-+.~")
            fuzzed = "".join(chars)[:rng.choice([13, 31, 32, 32, 32, 33, 64])]
            status, body = get(f"/call-outcome?sessionId={rng.choice([session, 's'])}&requestId={fuzzed}")
            self.assertIn(status, (200, 400), (fuzzed, body))
            statuses.add(status)
        self.assertEqual(statuses, {200, 400})


class AnAttemptHoldingTheClaim(unittest.TestCase):
    def test_a_call_is_pending_while_an_attempt_holds_its_claim_whatever_the_clock_says(self):
        session = new_session()
        request_id = f"{int((time.time() - 60) * 1000):013d}{uuid.uuid4().hex[:19]}"
        attempt = subprocess.Popen(["psql", DATABASE_URL, "-XAtq", "-v", "ON_ERROR_STOP=1"], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, text=True)
        try:
            # The frame names no deadline, so keeper_claim lets the old call begin.
            attempt.stdin.write("BEGIN;\n"
                                f"SELECT keeper_set_account_permits(ROW('{request_id}', 'SetAccountPermits', '', '', false, '', NULL, NULL)"
                                f"::keeper_call, keeper_session_hash('{session}'), 86400, true, false, true);\n")
            attempt.stdin.flush()
            self.assertEqual(attempt.stdout.readline().strip(), "0")  # its claim taken, its audit row written
            held = look(session, request_id)
            self.assertEqual((held["session"], held.get("outcome")), (0, "pending"), held)
            attempt.stdin.write("COMMIT;\n")
            attempt.stdin.close()
            self.assertEqual(attempt.wait(timeout=15), 0)
        finally:
            if attempt.poll() is None:
                attempt.kill()
                attempt.wait()
            attempt.stdout.close()
        committed = look(session, request_id)
        self.assertEqual((committed.get("outcome"), committed.get("result")), ("recorded", 0), committed)
        never = look(session, f"{int((time.time() - 60) * 1000):013d}{uuid.uuid4().hex[:19]}")
        self.assertEqual(never.get("outcome"), "none", never)


if __name__ == "__main__":
    unittest.main(verbosity=2)
