"""SubscribeAppWithTagAndLocale's throttle through the running stack (docs/api-decisions.md,
"Sessions and applications"): it counts a client's wrong hashes, per application and in all, and
never an application's alone, so one address that sends wrong hashes for an application (whose
appId is public: it ships in the app) is held at 11 while the application's other users subscribe.
The client is the address nginx names: the peer's on the site's port, the one the front names on
a worker host's tier listener (nginx/keeper-request-id.conf). Authenticate's rule, per login, is
the contract's and is not this one (tests/e2e/sessions_test.cpp)."""
import hashlib
import http.client
import os
import ssl
import subprocess
import unittest
import uuid

PORT = int(os.environ["KEEPER_TEST_PORT"])
TIER_PORT = int(os.environ["KEEPER_TEST_TIER_PORT"])
TIER = os.path.join(os.environ["KEEPER_TEST_STATE"], "tier")
PROVISION_URL = os.environ["KEEPER_TEST_PROVISION_DATABASE_URL"]
KEEPERCTL = os.environ["KEEPER_TEST_KEEPERCTL"]
SECRET = "throttle-app-secret-0123"
MAX_FAILURES = 20  # app_auth_max_failures, as scripts/test's stack has it (the default)


def add_app(app):
    env = dict(os.environ, KEEPER_PROVISION_DATABASE_URL=PROVISION_URL, KEEPER_CONFIG="/dev/null")
    subprocess.run([KEEPERCTL, "add-app", app, "-", "Android"], input=SECRET + "\n", text=True, env=env, check=True,
                   stdout=subprocess.DEVNULL)


def auth_hash(app, user):
    return hashlib.md5(f"{app.lower()}:{SECRET.lower()}:{user.lower()}".encode()).hexdigest()


def subscribe(app, user, right, source="127.0.0.1", front_names=None):
    """SubscribeAppWithTagAndLocale over HTTP GET; its result code. source: the address to call the
    site's port from; front_names: call the tier listener as the front does, naming this client."""
    path = (f"/PushApi.asmx/SubscribeAppWithTagAndLocale?appId={app}&userId={user}&pushServiceUserId={uuid.uuid4()}"
            f"&tag=1&locale=1033&authHash={auth_hash(app, user) if right else '0' * 32}")
    if front_names:
        ctx = ssl.create_default_context(cafile=os.path.join(TIER, "ca.crt"))
        ctx.load_cert_chain(os.path.join(TIER, "front.crt"), os.path.join(TIER, "front.key"))
        conn = http.client.HTTPSConnection("localhost", TIER_PORT, timeout=15, context=ctx)
        headers = {"X-Keeper-Client-Addr": front_names}
    else:
        conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=15, source_address=(source, 0))
        headers = {}
    try:
        conn.request("GET", path, headers=headers)
        r = conn.getresponse()
        body = r.read().decode()
        assert r.status == 200, body
        return int(body.split(">")[-2].split("<")[0])
    finally:
        conn.close()


class ApplicationThrottle(unittest.TestCase):
    def test_one_address_cannot_take_an_applications_subscriptions_from_its_users(self):
        app = f"throttle-{uuid.uuid4().hex[:8]}"
        add_app(app)
        attacker, user = "127.0.0.2", "127.0.0.3"
        answers = [subscribe(app, f"victim{i}", False, attacker) for i in range(MAX_FAILURES + 5)]
        self.assertEqual(answers, [4] * MAX_FAILURES + [11] * 5)
        self.assertEqual(subscribe(app, "attacker", True, attacker), 11)  # the attacker is held, right hash or not
        self.assertEqual(subscribe(app, "new-user", True, user), 0)  # the application's users are not
        self.assertEqual(subscribe(app, "new-user", False, user), 4)

    def test_the_client_is_the_address_the_front_names(self):
        app = f"throttle-front-{uuid.uuid4().hex[:8]}"
        add_app(app)
        for i in range(MAX_FAILURES):
            self.assertEqual(subscribe(app, f"victim{i}", False, front_names="2001:db8:5:6::1"), 4)
        self.assertEqual(subscribe(app, "other", True, front_names="2001:db8:5:6::2"), 11)  # the same /64
        self.assertEqual(subscribe(app, "other", True, front_names="2001:db8:5:7::2"), 0)
        self.assertEqual(subscribe(app, "other", True, front_names="203.0.113.50"), 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
