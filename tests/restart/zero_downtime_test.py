"""Restarting or reloading the pool drops no request, with nginx keeping upstream connections;
new connections are spread over the workers.

This harness does what keeper.socket + keeper.service do: it owns the listening socket and starts
keeper-fcgi with it on fd 0 as the keeper user. Under a bounded load through nginx it restarts the
pool three times (SIGTERM, wait, start again, as `systemctl restart`) and reloads it twice (SIGHUP,
as `systemctl reload`). Every request must get its proper answer.
"""
import os
import pwd
import shutil
import signal
import socket
import tempfile
import time
import unittest
import urllib.request

STATE = os.environ["KEEPER_TEST_STATE"]
DATABASE_URL = os.environ["KEEPER_TEST_WORKER_DATABASE_URL"]  # the workers' own role
SOURCE = os.environ["KEEPER_TEST_SOURCE_DIR"]
import nginx_conf  # the one writer of a test nginx's files (scripts/lib, on PYTHONPATH)
import harness.threads
import private_stack
from harness import wait
PORT = 18083
LOAD_THREADS = 8
LOAD_SECONDS = 8
MAX_REQUESTS = 200000  # bounded in count as well as time

REQUESTS = [
    ("/ErrorsApi.asmx/GetErrorDesc?errorCode=4&cultureCode=1033",
     b'<string xmlns="http://tempuri.org/">Authentication failed.</string>'),
    ("/AccountApi.asmx/CheckSessionEx?sessionId=zero-downtime&appId=x",  # uses the database
     b'<int xmlns="http://tempuri.org/">2</int>'),
]


class Stack:
    def __init__(self, work):
        self.work = work
        keeper = pwd.getpwnam("keeper")
        run = os.path.join(work, "run")
        os.makedirs(run)
        os.chown(run, keeper.pw_uid, keeper.pw_gid)
        self.socket_path = os.path.join(run, "keeper.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(self.socket_path)
        os.chown(self.socket_path, keeper.pw_uid, keeper.pw_gid)
        self.sock.listen(1024)
        self.log = open(os.path.join(work, "pool.log"), "ab")
        self.config = os.path.join(work, "keeper.conf")
        self.write_config(4)
        self.pool = None

    def write_config(self, workers):
        with open(self.config, "w") as f:
            f.write(f"workers = {workers}\n")
        os.chmod(self.config, 0o644)

    def worker_pids(self):
        with open(f"/proc/{self.pool.pid}/task/{self.pool.pid}/children") as f:
            return [int(p) for p in f.read().split()]

    def workers(self):
        return len(self.worker_pids())

    def wait_for_workers(self, n, seconds=5):
        wait.until(lambda: self.workers() == n, seconds)
        return self.worker_pids()

    def accepted_connections(self, pids):
        """How many connections to the pool's socket each process holds (accepted ends carry the path)."""
        with open("/proc/net/unix") as f:
            accepted = {fields[6] for fields in (line.split() for line in list(f)[1:])
                        if len(fields) >= 8 and fields[7] == self.socket_path and fields[5] == "03"}
        counts = []
        for pid in pids:
            fd_dir = f"/proc/{pid}/fd"
            links = [os.readlink(os.path.join(fd_dir, fd)) for fd in os.listdir(fd_dir)]
            counts.append(len({link[8:-1] for link in links if link.startswith("socket:[")} & accepted))  # a served one is also dup()ed
        return counts

    def start_pool(self):
        env = dict(os.environ, KEEPER_CONFIG=self.config, KEEPER_DATABASE_URL=DATABASE_URL)
        env.pop("KEEPER_WORKERS", None)
        self.pool = private_stack.Pool(
            private_stack.as_user([os.path.join(STATE, "install/usr/sbin/keeper-fcgi")]),
            env=env, log=self.log, stdin=self.sock.fileno())

    def stop_pool(self):
        self.pool.stop(40)

    def start_nginx(self):
        self.nginx_dir = os.path.join(self.work, "nginx")
        os.makedirs(self.nginx_dir)
        # The shipped upstream (keepalive on), pointed at this harness's socket.
        upstream = nginx_conf.shipped("keeper-upstream.conf", os.path.join(self.nginx_dir, "keeper-upstream.conf"),
                                      [("unix:/run/keeper/keeper.sock", f"unix:{self.socket_path}")])
        private_stack.start_nginx(self.nginx_dir, f"""
    include {upstream};
    server {{ listen 127.0.0.1:{PORT}; include {SOURCE}/nginx/keeper-errors.conf; include {SOURCE}/nginx/keeper-locations.conf; }}
""", PORT, os.path.join(self.work, "nginx-error.log"), user="keeper", workers=2, connections=1024)

    def close(self):
        if self.pool and self.pool.running():
            self.stop_pool()
        if hasattr(self, "nginx_dir"):
            private_stack.stop_nginx(self.nginx_dir)
        self.sock.close()


class Load(harness.threads.Threads):
    """Threads that call the stack until told to stop, counting proper and improper answers."""
    join_seconds = None  # each ends its call, however long the restart makes it

    def __init__(self):
        super().__init__(LOAD_THREADS)
        self.good = 0
        self.bad = []

    def run(self, i):
        n = 0
        while not self.stop.is_set() and self.good + len(self.bad) < MAX_REQUESTS:
            path, expected = REQUESTS[(i + n) % len(REQUESTS)]
            n += 1
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{PORT}{path}", timeout=40) as r:
                    ok, body = r.status == 200 and expected in r.read(), None
            except Exception as e:  # HTTP errors and broken connections alike
                ok, body = False, repr(e)
            with self.lock:
                if ok:
                    self.good += 1
                else:
                    self.bad.append(body or path)


class ZeroDowntimeTest(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="keeper-zero-downtime-")
        os.chmod(self.work, 0o755)
        self.stack = Stack(self.work)

    def tearDown(self):
        self.stack.close()
        shutil.rmtree(self.work, ignore_errors=True)

    def test_restarts_and_reloads_under_load_drop_no_request(self):
        stack = self.stack
        stack.start_pool()
        stack.start_nginx()
        time.sleep(0.5)
        with Load() as load:
            for _ in range(3):
                time.sleep(LOAD_SECONDS / 8)
                stack.stop_pool()   # systemctl restart: stop ...
                stack.start_pool()  # ... then start; meanwhile connections wait in the backlog
            for workers in (3, 5):
                time.sleep(LOAD_SECONDS / 8)
                stack.write_config(workers)
                stack.pool.process.send_signal(signal.SIGHUP)  # systemctl reload
            time.sleep(LOAD_SECONDS / 8)
            # The reloaded configuration is in force once the old workers have drained (nginx
            # closes their kept connections within its keepalive_time).
            self.assertEqual(len(stack.wait_for_workers(5, seconds=15)), 5)
        print(f"{load.good} proper answers, {len(load.bad)} others")
        self.assertEqual(load.bad[:5], [])
        self.assertGreater(load.good, 100)
        with open(os.path.join(self.work, "pool.log")) as f:
            log = f.read()
        self.assertEqual(log.count("configuration reloaded"), 2)
        self.assertGreaterEqual(log.count("pool: stopping"), 3)

    def test_new_connections_go_to_the_workers_in_turn(self):
        # Each worker has only database_connections of its own: if one worker took every kept
        # connection nginx opens, its calls would queue while the others' connections stood idle.
        self.stack.start_pool()
        workers = self.stack.wait_for_workers(4)
        time.sleep(0.3)  # every worker waiting on the socket
        clients = []
        try:
            for _ in range(8):
                clients.append(socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
                clients[-1].connect(self.stack.socket_path)
                time.sleep(0.02)
            time.sleep(0.3)
            held = self.stack.accepted_connections(workers)
        finally:
            for c in clients:
                c.close()
        print(f"connections held by each worker: {held}")
        self.assertEqual(sum(held), 8, held)
        self.assertLessEqual(max(held), 3, held)  # in turn: 2 each (one taking all 8 before)
        self.assertGreaterEqual(min(held), 1, held)

    def test_workers_leave_when_their_supervisor_is_killed(self):
        # systemd restarts a pool whose main process died; orphaned workers would keep the old
        # code and configuration serving beside it, and never be replaced (PR_SET_PDEATHSIG).
        self.stack.start_pool()
        workers = self.stack.wait_for_workers(4)
        self.assertEqual(len(workers), 4)
        self.stack.pool.process.send_signal(signal.SIGKILL)
        self.stack.pool.process.wait(timeout=10)

        def alive(pid):
            try:
                with open(f"/proc/{pid}/stat") as f:
                    return f.read().rsplit(")", 1)[1].split()[0] != "Z"
            except FileNotFoundError:
                return False
        wait.until(lambda: not any(alive(p) for p in workers), 10)
        self.assertEqual([p for p in workers if alive(p)], [], "workers outlived their supervisor")


if __name__ == "__main__":
    unittest.main(verbosity=2)
