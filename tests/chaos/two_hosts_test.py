"""Two worker pools behind one nginx, each pool an upstream of its own (nginx/keeper-upstream-hosts.conf).

Each pool stands for a worker host: its own sockets and its own log, both on the test stack's
database. nginx runs the shipped keeper-locations.conf and keeper-upstream-hosts.conf, the hosts'
TCP addresses replaced by the pools' Unix sockets. Writers run top-ups and contact permits
through it while pool A's workers are killed, 4 times. A call a killed worker had in hand must be
sent again only to pool A's retry socket, where it is settled (docs/design.md, "In-doubt calls"),
never to pool B, where it would run a second time. Asserted afterwards: no call failed, every
acknowledged write is there once and no top-up twice, pool A's log shows calls that came again on
its retry socket, and no request id is in both pools' logs. Bounded: about 15 s; it stops and
removes everything it started.

Needs scripts/test's stack (KEEPER_TEST_*).
"""
import hashlib
import http.client
import itertools
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import unittest

SOURCE = os.environ["KEEPER_TEST_SOURCE_DIR"]
STATE = os.environ["KEEPER_TEST_STATE"]
DATABASE_URL = os.environ["KEEPER_TEST_DATABASE_URL"]
PORT = 18087
KILLS = 4


def sql(query):
    return subprocess.run(["psql", DATABASE_URL, "-XAtqc", query], check=True, capture_output=True, text=True).stdout.strip()


class TwoHosts(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="keeper-two-hosts-")
        os.chmod(self.dir, 0o755)
        shutil.chown(self.dir, "keeper", "keeper")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.pools = {name: self.start_pool(name) for name in ("a", "b")}
        self.start_nginx()

    def start_pool(self, name):
        env = dict(os.environ, KEEPER_DATABASE_URL=os.environ["KEEPER_TEST_WORKER_DATABASE_URL"], KEEPER_CONFIG="/dev/null",
                   KEEPER_DRAIN_SECONDS="1")
        log = open(f"{self.dir}/{name}.log", "w")
        pool = subprocess.Popen(["setpriv", "--reuid=keeper", "--regid=keeper", "--init-groups", "--",
                                 f"{STATE}/install/usr/sbin/keeper-fcgi", "--workers", "2",
                                 "--listen", f"{self.dir}/{name}.sock", "--retry-listen", f"{self.dir}/{name}-retry.sock"],
                                env=env, stdout=log, stderr=log)
        self.addCleanup(self.stop_pool, pool, log)
        for _ in range(100):
            if os.path.exists(f"{self.dir}/{name}-retry.sock"):
                return pool
            time.sleep(0.1)
        self.fail(f"pool {name} did not start")

    @staticmethod
    def stop_pool(pool, log):
        pool.terminate()
        try:
            pool.wait(20)
        except subprocess.TimeoutExpired:
            pool.kill()
        log.close()

    def start_nginx(self):
        with open(f"{SOURCE}/nginx/keeper-upstream-hosts.conf") as f:
            hosts = f.read()
        for n, name in ((11, "a"), (12, "b")):
            hosts = hosts.replace(f"10.0.0.{n}:9000", f"unix:{self.dir}/{name}.sock")
            hosts = hosts.replace(f"10.0.0.{n}:9001", f"unix:{self.dir}/{name}-retry.sock")
        self.assertNotIn("10.0.0.", hosts)
        with open(f"{self.dir}/hosts.conf", "w") as f:
            f.write(hosts)
        os.makedirs(f"{self.dir}/tmp")
        shutil.chown(f"{self.dir}/tmp", "keeper", "keeper")
        with open(f"{self.dir}/nginx.conf", "w") as f:
            f.write(f"""user keeper;
pid {self.dir}/nginx.pid;
error_log {self.dir}/nginx-error.log warn;
events {{}}
http {{
    access_log off;
    include {SOURCE}/nginx/keeper-request-id.conf;
    include {SOURCE}/nginx/keeper-limits.conf;
    client_body_temp_path {self.dir}/tmp/body;
    fastcgi_temp_path {self.dir}/tmp/fastcgi;
    include {self.dir}/hosts.conf;
    server {{
        listen 127.0.0.1:{PORT};
        include {SOURCE}/nginx/keeper-locations.conf;
    }}
}}
""")
        nginx = ["nginx", "-p", self.dir, "-c", f"{self.dir}/nginx.conf", "-e", f"{self.dir}/nginx-error.log"]
        subprocess.run(nginx, check=True)
        self.addCleanup(subprocess.run, nginx + ["-s", "stop"])
        for _ in range(50):
            try:
                http.client.HTTPConnection("127.0.0.1", PORT, timeout=1).request("GET", "/GlobalApi.asmx/GetUtcNow")
                return
            except OSError:
                time.sleep(0.1)

    def workers(self, name):
        pid = self.pools[name].pid
        children = []
        for p in os.listdir("/proc"):  # setpriv execs keeper-fcgi, so the pool is this pid
            try:
                with open(f"/proc/{p}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if p.isdigit() and int(fields[1]) == pid:
                    children.append(int(p))
            except (OSError, IndexError):
                pass
        return children

    def log_ids(self, name):
        with open(f"{self.dir}/{name}.log", errors="replace") as f:
            text = f.read()
        return (set(re.findall(r"request_id=([0-9a-f]{32})(?: trace_id=[0-9a-f]{32})? group=AccountApi", text)),
                text.count(" retried=true"))

    def test_a_call_whose_worker_died_is_settled_by_its_own_host(self):
        n = os.getpid() % 100000
        login, secret, session = f"hosts{n}", f"hosts-secret-{n}", f"hosts-session-{n}"
        purse, card = f"Z{700000000000 + n}", 700000 + n
        sql(f"INSERT INTO logins (login, shared_secret) VALUES ('{login}', '{secret}')")
        sql(f"INSERT INTO purses (purse, login_id) SELECT '{purse}', id FROM logins WHERE login = '{login}'")
        sql(f"INSERT INTO cards (id, login_id, daily_limit) SELECT {card}, id, 999999999 FROM logins WHERE login = '{login}'")
        h = hashlib.md5(f"{login}:{secret}:{session}".lower().encode()).hexdigest()
        c = http.client.HTTPConnection("127.0.0.1", PORT, timeout=10)
        c.request("GET", f"/SimpleAuthApi.asmx/Authenticate?sessionId={session}&login={login}&authHash={h}")
        self.assertTrue(c.getresponse().read().rstrip().endswith(b">0</int>"))

        counter, lock, stop = itertools.count(1), threading.Lock(), threading.Event()
        acked, failed = {"topup": [], "permit": []}, []

        def write():
            conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
            while not stop.is_set():
                i = next(counter)
                if i % 2:
                    kind, value = "topup", f"{i // 100}.{i % 100:02d}"
                    path = f"/AccountApi.asmx/TopupPurseFromAtmCard?sessionId={session}&purseDest={purse}&cardId={card}&amount={value}"
                else:
                    kind, value = "permit", f"{i:012d}"
                    path = (f"/AccountApi.asmx/SetContactPermitsEx?sessionId={session}&wmid={value}&acceptPayments=true"
                            "&acceptInvoices=false&acceptMessages=true&dontUseConfirmation=false")
                try:
                    conn.request("GET", path)
                    r = conn.getresponse()
                    ok = r.status == 200 and r.read().rstrip().endswith(b">0</int>")
                except (OSError, http.client.HTTPException):
                    conn.close()
                    ok = False
                with lock:
                    (acked[kind] if ok else failed).append(value)

        writers = [threading.Thread(target=write) for _ in range(6)]
        for t in writers:
            t.start()
        try:
            time.sleep(1)
            for _ in range(KILLS):
                os.kill(self.workers("a")[0], signal.SIGKILL)
                time.sleep(1)
            time.sleep(1)
        finally:
            stop.set()
            for t in writers:
                t.join(60)

        topups = sql(f"SELECT string_agg(amount::text, ' ') FROM topups WHERE card_id = {card}").split()
        wmids = set(sql(f"SELECT string_agg(wmid, ' ') FROM contact_permits c JOIN logins l ON l.id = c.login_id "
                        f"WHERE l.login = '{login}'").split())
        ids_a, retried_a = self.log_ids("a")
        ids_b, retried_b = self.log_ids("b")
        print(f"\ntwo hosts: {len(acked['topup']) + len(acked['permit'])} writes acknowledged, {len(failed)} failed; "
              f"pool a {len(ids_a)} calls ({retried_a} came again on its retry socket), pool b {len(ids_b)} calls "
              f"({retried_b})", flush=True)
        self.assertEqual(failed, [], "no call fails when a host's workers are killed")
        self.assertEqual(set(acked["topup"]) - set(topups), set(), "acknowledged top-ups missing")
        self.assertEqual(set(acked["permit"]) - wmids, set(), "acknowledged permits missing")
        self.assertEqual(len(topups), len(set(topups)), "a top-up applied twice")
        self.assertGreater(len(ids_a), 0)
        self.assertGreater(len(ids_b), 0, "both hosts served")
        self.assertGreater(retried_a, 0, "calls the killed workers had came again on their host's retry socket")
        self.assertEqual(retried_b, 0)
        self.assertEqual(ids_a & ids_b, set(), "a call ran on both hosts")


if __name__ == "__main__":
    unittest.main(verbosity=2)
