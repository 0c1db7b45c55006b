"""keeper-fcgi refuses a database behind a pooler in transaction mode, and accepts one in session mode.

keeper needs its connections' sessions: the timeouts and application_name it sets, the statements
it prepares, and the server process it records to settle an in-doubt call (docs/scaling.md,
"Capacity"). A real PgBouncer (Debian's) runs in front of the test stack's PostgreSQL, once in each
mode, and `keeper-fcgi --check-config`, the check a start and a reload make, is pointed at it.
Needs scripts/test's stack (KEEPER_TEST_*). Everything it starts is stopped and removed.
"""
import os
import shutil
import subprocess
import tempfile
import unittest

from harness import wait

STATE = os.environ["KEEPER_TEST_STATE"]
FCGI = os.environ["KEEPER_TEST_FCGI"]
PORT = 18432


class PoolerMode(unittest.TestCase):
    def check_config_through(self, mode, round_robin=0):
        """(exit status, stderr) of --check-config with the workers' database behind PgBouncer in `mode`,
        handing out the server connection used last (server_round_robin = 0, PgBouncer's default) or
        the one idle longest (1)."""
        root = tempfile.mkdtemp(prefix="keeper-pooler-")
        self.addCleanup(shutil.rmtree, root, ignore_errors=True)
        shutil.chown(root, "keeper", "keeper")
        with open(f"{root}/pgbouncer.ini", "w") as f:
            f.write(f"""[databases]
keeper = host={STATE}/run dbname=keeper user=keeper_worker
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {PORT}
unix_socket_dir =
auth_type = any
pool_mode = {mode}
server_round_robin = {round_robin}
pidfile = {root}/pgbouncer.pid
logfile = {root}/pgbouncer.log
""")
        bouncer = subprocess.Popen(["setpriv", "--reuid=keeper", "--regid=keeper", "--init-groups", "--",
                                    "/usr/sbin/pgbouncer", f"{root}/pgbouncer.ini"], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        try:
            wait.until(lambda: subprocess.run(["psql", f"host=127.0.0.1 port={PORT} dbname=keeper", "-XAtqc", "SELECT 1"],
                                              capture_output=True).returncode == 0, 5)
            env = dict(os.environ, KEEPER_DATABASE_URL=f"host=127.0.0.1 port={PORT} dbname=keeper", KEEPER_CONFIG="/dev/null")
            out = subprocess.run([FCGI, "--check-config"], capture_output=True, text=True, env=env, timeout=60)
            return out.returncode, out.stdout + out.stderr
        finally:
            bouncer.terminate()
            bouncer.wait(10)

    def test_transaction_mode_is_refused_and_says_why(self):
        status, said = self.check_config_through("transaction")
        self.assertNotEqual(status, 0, said)
        self.assertIn("lose their session between transactions", said)
        self.assertIn("pool_mode=session", said)

    def test_transaction_mode_going_round_its_connections_is_refused_too(self):
        status, said = self.check_config_through("transaction", round_robin=1)
        self.assertNotEqual(status, 0, said)
        self.assertIn("lose their session between transactions", said)

    def test_session_mode_passes(self):
        status, said = self.check_config_through("session")
        self.assertEqual(status, 0, said)
        self.assertIn("schema version", said, "the check reached the database through PgBouncer")


if __name__ == "__main__":
    unittest.main(verbosity=2)
