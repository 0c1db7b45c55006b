"""The stack a test runs against, as scripts/test (or own_stack.sh) started it (scripts/lib/stack.sh,
start_test_stack): where it is, provisioning with keeperctl, and SQL checks with psql as the schema's
owner."""
import os
import subprocess

PORT = int(os.environ["KEEPER_TEST_PORT"])
STATE = os.environ["KEEPER_TEST_STATE"]
DATABASE_URL = os.environ["KEEPER_TEST_DATABASE_URL"]  # the schema owner, for checks
PROVISION_URL = os.environ["KEEPER_TEST_PROVISION_DATABASE_URL"]  # keeperctl add-* as keeper_provision
KEEPERCTL = os.environ["KEEPER_TEST_KEEPERCTL"]
BASE = f"http://127.0.0.1:{PORT}"


def wsdl(group):
    return f"{BASE}/{group}.asmx?WSDL"


def keeperctl(*args, secret=None):
    """keeperctl ARGS as keeper_provision; a secret given is passed on its standard input (argument "-")."""
    env = dict(os.environ, KEEPER_PROVISION_DATABASE_URL=PROVISION_URL, KEEPER_CONFIG="/dev/null")
    subprocess.run([KEEPERCTL, *map(str, args)], env=env, check=True, stdout=subprocess.DEVNULL,
                   input=None if secret is None else secret + "\n", text=True)


def sql(query):
    """One statement's rows as psql prints them unaligned, stopping at the first error."""
    return subprocess.run(["psql", DATABASE_URL, "-XAtq", "-v", "ON_ERROR_STOP=1", "-c", query], check=True,
                          capture_output=True, text=True).stdout.strip()


from harness.auth import auth_hash  # noqa: F401  the tests of clients/ take it from here


class Objects:
    """A login with one object of every kind, ids unique to this test run and binding."""

    def __init__(self, tag):
        n = (os.getpid() % 10000) * 100 + tag
        self.login = f"zc{n}"
        self.secret = f"client-secret-{n:06d}"
        self.session = f"client-session-{n}"
        self.app = f"zc-app-{n}"
        self.app_secret = f"client-app-secret-{n:06d}"
        self.purse = f"Z{700000000000 + n}"
        self.id = 700000 + n
        keeperctl("add-login", self.login, self.secret)
        keeperctl("add-app", self.app, self.app_secret, "iOS")
        keeperctl("add-purse", self.login, self.purse, "--balance", "1.10")
        keeperctl("add-card", self.login, self.id)
        keeperctl("add-transfer", self.login, self.id, "50", "4321")
        keeperctl("add-profile", self.login, self.id, "Old name")
        keeperctl("add-task", self.id, 1, "777")
        keeperctl("add-sms", self.login, self.id)

    def login_id(self):
        return sql(f"SELECT id FROM logins WHERE login = '{self.login}'")
