"""What the tests of tests/ha share: keeper's pool and nginx in front of a PostgreSQL that the test
runs (a Patroni cluster, or a standalone instance archiving to pgBackRest), a login with
a session, a purse and a card, and writers whose every acknowledgement is recorded.

Everything runs as the unprivileged user keeper under one temporary directory."""
import collections
import http.client
import itertools
import json
import os
import pwd
import shutil
import subprocess
import time
import urllib.parse

import harness.threads
from harness import wait, web
import nginx_conf  # the one writer of a test nginx's files (scripts/lib, on PYTHONPATH)
import private_stack  # the one starter of a test's processes (scripts/lib)
from private_stack import USER, run

SOURCE = os.environ["KEEPER_TEST_SOURCE_DIR"]
HTTP_PORT = 18641
# Where the clients find nginx: loopback, or the edge host's address on a test network
# (tests/harness/hostnet.py), set by the test before its clients start.
front = ("127.0.0.1", HTTP_PORT)
SESSION = "{aaaaaaaa-bbbb-cccc-dddd-000000000012}"
LOGIN, SECRET, PURSE, CARD = "ha-login", "ha-shared-secret-0001", "Z912000000001", 912001
PURSE2, CARD2 = "Z912000000002", 912002  # the retrying client's (RetryingWriters)


def as_keeper(*cmd, **kw):
    return run(private_stack.as_user(cmd), **kw)


def make_root(prefix):
    """A temporary directory the user keeper owns, with the folders the tests use."""
    import tempfile
    root = tempfile.mkdtemp(prefix=prefix)
    keeper = pwd.getpwnam(USER)
    for d in ("", "sock", "bin", "nginx", "log"):
        os.makedirs(f"{root}/{d}", exist_ok=True)
        os.chown(f"{root}/{d}", keeper.pw_uid, keeper.pw_gid)
    os.chmod(root, 0o755)
    for b in ("KEEPER_TEST_FCGI", "KEEPER_TEST_KEEPERCTL"):  # where the user keeper can run them
        shutil.copy(os.environ[b], f"{root}/bin/")
    return root


def descendants(root):
    """root and every process below it."""
    children = collections.defaultdict(list)
    for line in subprocess.run(["ps", "-e", "-o", "pid=,ppid="], capture_output=True, text=True).stdout.splitlines():
        pid, ppid = map(int, line.split())
        children[ppid].append(pid)
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children[pid])
    return out



class KeeperFront:
    """keeper-fcgi (4 workers) and nginx with the shipped keeper-locations.conf, on a database
    given as libpq key=value hosts and as a URI."""

    def __init__(self, root, hosts, uri, password=None):
        """password: every role's (the database takes passwords only); None: it trusts."""
        self.root, self.uri, self.password = root, uri, password
        self.pool = self.nginx = None
        auth = f" password={password}" if password else ""
        self.env = dict(os.environ, KEEPER_CONFIG="/dev/null", KEEPER_SECRET_KEY_FILE=f"{root}/secret.keys",
                        KEEPER_DATABASE_URL=f"{hosts} user=keeper_worker{auth}",
                        KEEPER_ADMIN_DATABASE_URL=f"{hosts} user=keeper{auth}",
                        KEEPER_PROVISION_DATABASE_URL=f"{hosts} user=keeper{auth}", KEEPER_CARD_DAILY_LIMIT="1000000000")

    def keeperctl(self, *args):
        return run(private_stack.as_user([f"{self.root}/bin/keeperctl", *args]), env=self.env).stdout

    def prepare_database(self):
        with open(f"{self.root}/secret.keys", "w") as f:
            f.write(run([f"{self.root}/bin/keeperctl", "new-key", "k1"]).stdout)
        os.chown(f"{self.root}/secret.keys", pwd.getpwnam(USER).pw_uid, -1)
        os.chmod(f"{self.root}/secret.keys", 0o600)
        self.keeperctl("migrate")
        self.keeperctl("roles")
        if self.password:  # the roles keeperctl made log in with it
            for role in ("keeper_worker", "keeper_maintain", "keeper_provision"):
                self.sql(f"ALTER ROLE {role} PASSWORD '{self.password}'")
        for step in (["rotate-key"], ["add-login", LOGIN, SECRET],
                     ["add-purse", LOGIN, PURSE], ["add-card", LOGIN, str(CARD)],
                     ["add-purse", LOGIN, PURSE2], ["add-card", LOGIN, str(CARD2)]):
            self.keeperctl(*step)
        self.sql(f"INSERT INTO sessions (session_hash, login_id, authenticated_at) SELECT keeper_session_hash('{SESSION}'), id, now() "
                 f"FROM logins WHERE login = '{LOGIN}'")

    def sql(self, query, uri=None):
        return as_keeper("psql", uri or self.uri, "-v", "ON_ERROR_STOP=1", "-Atc", query).stdout

    def start(self):
        with open(f"{self.root}/log/keeper.log", "a") as log:
            self.pool = private_stack.Pool(private_stack.as_user(private_stack.pool_command(
                f"{self.root}/bin/keeper-fcgi", f"{self.root}/sock", workers=4, retry=False)), env=self.env, log=log,
                socket=f"{self.root}/sock/keeper.sock")
        # The shipped upstreams with no retry socket: a request cut off after it left nginx is
        # answered "outcome unknown".
        upstream = nginx_conf.shipped("keeper-upstream.conf", f"{self.root}/nginx/keeper-upstream.conf",
                                      [("unix:/run/keeper/keeper-retry.sock", f"unix:{self.root}/sock/no-retry.sock"),
                                       ("unix:/run/keeper/", f"unix:{self.root}/sock/")])
        self.nginx = private_stack.start_nginx(f"{self.root}/nginx", f"""
    include {upstream};
    server {{
        listen 127.0.0.1:{HTTP_PORT};
        include {SOURCE}/nginx/keeper-errors.conf; include {SOURCE}/nginx/keeper-locations.conf;
    }}
""", HTTP_PORT, f"{self.root}/log/nginx-error.log", user=USER)
        if not wait.until(lambda: Writers.call("/GlobalApi.asmx/GetUtcNow", {})[0] == 200, 5):
            raise AssertionError("keeper did not answer behind nginx")

    def stop(self):
        if self.nginx:
            private_stack.stop_nginx(f"{self.root}/nginx")
        if self.pool:
            self.pool.stop(20)


class Writers(harness.threads.Threads):
    """Threads calling keeper as `who` (session, purse, card; the shared login's by default), each
    write distinct, every answer recorded with its times. With resend_on_close, a call on a kept
    connection that nginx closed before reading it (it closes idle ones when it reloads) is sent
    again on a new one, as HTTP clients do; without it, any failure is the call's answer."""
    join_seconds = 70

    def __init__(self, threads=6, first_key=1, who=None, resend_on_close=False):
        super().__init__(threads)
        self.counter = first_key - 1
        self.session, self.purse, self.card = who or (SESSION, PURSE, CARD)
        self.resend_on_close = resend_on_close
        # (kind, key, started, ended, status, result: "0".., None, "not applied" or "unknown", request id)
        self.calls = []

    def next_key(self):
        with self.lock:
            self.counter += 1
            return self.counter

    @staticmethod
    def call(path, params, conn=None, resend_on_close=False):
        """(status, result, request id) of one GET; status 0 when no answer came. On conn (kept
        open between calls, as a mobile client keeps its connection) or a connection of its own."""
        own = conn is None
        conn = conn or http.client.HTTPConnection(*front, timeout=60)
        target = path + "?" + urllib.parse.urlencode(params)
        try:
            for attempt in (1, 2):
                reused = conn.sock is not None
                try:
                    return Writers.answer(conn, target)
                except (OSError, http.client.HTTPException) as e:
                    conn.close()
                    closed_unread = isinstance(e, (BrokenPipeError, ConnectionResetError))  # RemoteDisconnected too
                    if not (resend_on_close and attempt == 1 and reused and closed_unread):
                        return 0, type(e).__name__, None
        finally:
            if own:
                conn.close()

    @staticmethod
    def answer(conn, target):
        conn.request("GET", target)
        r = conn.getresponse()
        body = r.read().decode(errors="replace")
        if r.status == 200:
            result = body.rsplit(">", 2)[-2].split("<")[0]
        elif "outcome of the call is unknown" in body:  # may have been applied, keeper's and nginx's (docs/scaling.md)
            result = "unknown"
        else:
            result = "not applied" if r.status == 503 and "not applied" in body else None
        return r.status, result, r.getheader("X-Request-Id")

    def run(self, _):
        # One kept connection per writer: a new one per call would leave a TIME_WAIT each, and
        # outside loopback (no tcp_tw_reuse) those use up the client's ports within a minute.
        conn = http.client.HTTPConnection(*front, timeout=60)
        while not self.stop.is_set():
            n = self.next_key()
            if n % 2:
                kind, key = "topup", f"{n // 100}.{n % 100:02d}"
                params = {"sessionId": self.session, "purseDest": self.purse, "cardId": self.card, "amount": key}
                path = "/AccountApi.asmx/TopupPurseFromAtmCard"
            else:
                kind, key = "permit", f"{700000000000 + n}"
                params = {"sessionId": self.session, "wmid": key, "acceptPayments": "true", "acceptInvoices": "false",
                          "acceptMessages": "true", "dontUseConfirmation": "false"}
                path = "/AccountApi.asmx/SetContactPermitsEx"
            started = time.monotonic()
            status, result, request_id = self.call(path, params, conn, self.resend_on_close)
            with self.lock:
                self.calls.append((kind, key, started, time.monotonic(), status, result, request_id))
            if status != 200:
                time.sleep(0.05)  # a failing database: do not spin
        conn.close()

    def acked(self):
        with self.lock:
            return [c for c in self.calls if c[4] == 200 and c[5] == "0"]

    def failed(self):
        with self.lock:
            return [c for c in self.calls if not (c[4] == 200 and c[5] == "0")]

    def failed_since(self, t):
        return any(c[3] >= t for c in self.failed())

    def longest_gap(self, since, until):
        """(start, end), monotonic, of the longest time in [since, until] without an acknowledgement."""
        ends = [since] + sorted(c[3] for c in self.acked() if since <= c[3] <= until) + [until]
        return max(zip(ends, ends[1:]), key=lambda pair: pair[1] - pair[0])


def look_at_call(request_id, session=SESSION):
    """/call-outcome's answer of one of session's calls, asked once (again while nginx answers that it
    cannot be read now, as after the workers' kill), and its Retry-After (docs/api-decisions.md,
    "Checking a call's outcome")."""
    query = urllib.parse.urlencode({"sessionId": session, "requestId": request_id})
    for _ in range(5):
        _, headers, body = web.call(front[1], f"/call-outcome?{query}", host=front[0], timeout=10)
        if "Message" not in (answer := json.loads(body)):
            break
        time.sleep(0.5)
    return answer, int(headers.get("Retry-After", "1"))


def call_outcome(request_id, session=SESSION):
    """What /call-outcome says of one of session's calls, asked again while it is "pending" (30 times
    at most)."""
    for _ in range(30):
        answer, retry_after = look_at_call(request_id, session)
        if answer.get("outcome") != "pending":
            return answer
        time.sleep(min(retry_after, 5))
    return answer


class RetryingWriters(harness.threads.Threads):
    """A client as docs/api.md asks one to be: each top-up (as `who`, the shared login's second
    purse and card by default; each amount distinct) sent with an Idempotency-Key of its own,
    `prefix`-n, and repeated, same key and amount, until it has an answer. A top-up begun before
    finish() is still repeated until answered (or 120 s pass)."""

    join_seconds = 130

    def __init__(self, threads=3, who=None, prefix="ha"):
        super().__init__(threads)
        self.counter = itertools.count(1)
        self.session, self.purse, self.card = who or (SESSION, PURSE2, CARD2)
        self.prefix = prefix
        self.intended, self.answers = [], {}  # amount -> result
        self.sends = self.replays = 0

    @staticmethod
    def send(params, key):
        """(result, replayed) of one send; (None, False) without an answer of keeper's."""
        try:
            status, headers, body = web.call(front[1], "/AccountApi.asmx/TopupPurseFromAtmCard?" +
                                             urllib.parse.urlencode(params), headers={"Idempotency-Key": key},
                                             host=front[0], timeout=60)
        except (OSError, http.client.HTTPException):
            return None, False
        if status != 200:
            return None, False
        return body.decode(errors="replace").rsplit(">", 2)[-2].split("<")[0], headers.get("Idempotent-Replayed") == "true"

    def run(self, _):
        while not self.stop.is_set():
            n = next(self.counter)
            amount = f"{n // 100}.{n % 100:02d}"
            params = {"sessionId": self.session, "purseDest": self.purse, "cardId": self.card, "amount": amount}
            with self.lock:
                self.intended.append(amount)
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                result, replayed = self.send(params, f"{self.prefix}-{n}")
                with self.lock:
                    self.sends += 1
                    self.replays += replayed
                    if result is not None:
                        self.answers[amount] = result
                if result is not None:
                    break
                time.sleep(0.2)

    def unanswered(self):
        """The top-ups begun whose answer was not 0, or that got none."""
        return [a for a in self.intended if self.answers.get(a) != "0"]


def wall_clock(t):
    """A monotonic time as HH:MM:SS.mmm UTC, to set beside the monitor's events."""
    w = t + time.time() - time.monotonic()
    return time.strftime("%H:%M:%S", time.gmtime(w)) + f".{int(w % 1 * 1000):03d}"
