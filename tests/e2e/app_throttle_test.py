"""SubscribeAppWithTagAndLocale's guard against guessing through the running stack
(docs/api-decisions.md, "Sessions and applications"). It is keyed by what is guessed, the
application and its userId, as the contract keys Authenticate's by the login, and never by an
address: thousands of phones share one behind a carrier's NAT, and neither a phone that names
applications that do not exist nor an app build that sends wrong hashes for its user holds the
other users there. What an address does meet is nginx's rate (tests/e2e/nginx_faults_test.py).
Authenticate's rule, per login, is the contract's (tests/e2e/sessions_test.cpp)."""
import threading
import time
import unittest
import uuid

from harness import web
from harness.auth import auth_hash
from harness.test_stack import PORT, keeperctl, sql

SECRET = "throttle-app-secret-0123"
MAX_FAILURES = 20  # app_auth_max_failures, as scripts/test's stack has it (the default)
WINDOW = "900 seconds"  # app_auth_failure_window_seconds, likewise


def add_app(app):
    keeperctl("add-app", app, "-", "Android", secret=SECRET)


def app_hash(app, user):
    return auth_hash(app, SECRET, user)


def subscribe(app, user, right, source):
    """SubscribeAppWithTagAndLocale over HTTP GET from the address source; its result code."""
    path = (f"/PushApi.asmx/SubscribeAppWithTagAndLocale?appId={app}&userId={user}&pushServiceUserId={uuid.uuid4()}"
            f"&tag=1&locale=1033&authHash={app_hash(app, user) if right else '0' * 32}")
    status, _, body = web.call(PORT, path, source=source)
    assert status == 200, body
    return int(body.decode().split(">")[-2].split("<")[0])


class GuardAgainstGuessing(unittest.TestCase):
    def test_calls_naming_no_application_hold_nobody(self):
        app = f"throttle-none-{uuid.uuid4().hex[:8]}"
        add_app(app)
        # From the host itself, which nginx's rate leaves alone: only keeper could hold it.
        ghosts = [subscribe(f"ghost-{uuid.uuid4().hex[:8]}", "someone", True, "127.0.0.1") for _ in range(110)]
        self.assertEqual(ghosts, [4] * 110)
        self.assertEqual(subscribe(app, "someone", True, "127.0.0.1"), 0)
        self.assertEqual(sql("SELECT count(*) FROM app_auth_failures WHERE app_id LIKE 'ghost-%'"), "0")

    def test_wrong_hashes_for_one_user_hold_that_user_alone(self):
        app = f"throttle-user-{uuid.uuid4().hex[:8]}"
        add_app(app)
        source = "127.0.0.5"  # one carrier address: a misconfigured build and the application's other users
        answers = [subscribe(app, "misconfigured", False, source) for _ in range(MAX_FAILURES + 5)]
        self.assertEqual(answers, [4] * MAX_FAILURES + [11] * 5)
        stop, sent = threading.Event(), []

        def keep_failing():  # the build goes on, under nginx's rate for the address
            while not stop.is_set():
                sent.append(subscribe(app, "misconfigured", False, source))
                stop.wait(0.2)

        build = threading.Thread(target=keep_failing)
        build.start()
        try:
            self.assertEqual(subscribe(app, "neighbour", True, source), 0)
            self.assertEqual(subscribe(app, "misconfigured", True, source), 11)  # held, right hash or not
            self.assertEqual(subscribe(app, "MisConfigured", True, source), 11)  # the userId as the hash reads it
            self.assertEqual(subscribe(app, "neighbour", False, source), 4)
            self.assertEqual(subscribe(app, "neighbour", True, source), 0)  # one failure holds nobody
            while len(sent) < 3 and build.is_alive():
                time.sleep(0.05)
        finally:
            stop.set()
            build.join()
        self.assertTrue(sent and set(sent) == {11}, sent)
        # The window after its last failure frees the user (its failures dated the window back).
        sql(f"UPDATE app_auth_failures SET failed_at = failed_at - interval '{WINDOW}' WHERE app_id = '{app}'")
        self.assertEqual(subscribe(app, "misconfigured", True, source), 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
