"""Backups and point-in-time restore with pgBackRest (docs/scaling.md, "Runbooks": restore to a point in time).

As the user keeper, on loopback: a PostgreSQL instance archiving its WAL with pgBackRest (Debian's
pgbackrest, the settings of the shipped packaging/pgbackrest/ files pointed at a temporary
repository, without a cipher; the deploy tier runs the shipped files themselves, cipher included,
as docs/operations.md's "Back up" has them), keeper's schema and pool in front of it. A full backup; then writers through keeper
record every acknowledged top-up and contact permit; a pause, whose middle is the target time; more
writes. scripts/pitr-restore restores into a new data directory at the target and starts it on
another port: every write acknowledged before the target is there, none made after it is.
Everything it starts is stopped and removed at the end.
"""
import collections
import datetime
import os
import shutil
import subprocess
import time
import unittest

from harness.keeper_stack import CARD, LOGIN, SOURCE, USER, KeeperFront, Writers, as_keeper, make_root
import private_stack  # the one starter of a test's processes (scripts/lib)

PORT, RESTORED_PORT = 18651, 18652


class PointInTimeRestore(unittest.TestCase):
    def setUp(self):
        self.root = make_root("keeper-backup-")
        self.front = None
        self.addCleanup(self.cleanup)
        self.config = f"{self.root}/pgbackrest.conf"
        self.write_pgbackrest_config()
        self.start_database()
        self.front = KeeperFront(self.root, f"host=127.0.0.1 port={PORT} dbname=keeper",
                                 f"postgres://127.0.0.1:{PORT}/keeper")
        self.front.prepare_database()
        self.pgbackrest("stanza-create")
        self.pgbackrest("check")
        self.front.start()

    def pgbackrest(self, *args):
        return as_keeper("pgbackrest", f"--config={self.config}", "--stanza=keeper", *args).stdout

    def write_pgbackrest_config(self):
        for d in ("repo", "pgbr-log", "pgbr-lock", "pgbr-spool"):
            os.makedirs(f"{self.root}/{d}")
        with open(self.config, "w") as f:
            f.write(f"""[global]
repo1-path={self.root}/repo
repo1-retention-full=2
compress-type=zst
start-fast=y
log-path={self.root}/pgbr-log
lock-path={self.root}/pgbr-lock
spool-path={self.root}/pgbr-spool
log-level-console=warn

[keeper]
pg1-path={self.root}/pg
pg1-port={PORT}
pg1-socket-path={self.root}/sock
""")
        subprocess.run(["chown", "-R", f"{USER}:", self.root], check=True)

    def start_database(self):
        private_stack.init_postgres(f"{self.root}/pg")
        with open(f"{self.root}/pg/postgresql.auto.conf", "a") as f:
            f.write(f"""port = {PORT}
listen_addresses = '127.0.0.1'
unix_socket_directories = '{self.root}/sock'
wal_level = replica
archive_mode = on
archive_command = 'pgbackrest --config={self.config} --stanza=keeper archive-push %p'
""")
        private_stack.start_postgres(f"{self.root}/pg", f"{self.root}/log/pg.log")
        private_stack.ensure_database(f"postgres://127.0.0.1:{PORT}/postgres")

    def cleanup(self):
        if self.front:
            self.front.stop()
        for data in ("pg", "restored"):
            private_stack.stop_postgres(f"{self.root}/{data}", "immediate")
        shutil.rmtree(self.root, ignore_errors=True)

    @staticmethod
    def write_for(writers, seconds):
        writers.start()
        time.sleep(seconds)
        writers.finish()
        return writers

    def written(self, uri):
        amounts = set(self.front.sql(f"SELECT amount FROM topups WHERE card_id = {CARD}", uri).split())
        wmids = set(self.front.sql(f"SELECT c.wmid FROM contact_permits c JOIN logins l ON l.id = c.login_id "
                                   f"WHERE l.login = '{LOGIN}'", uri).split())
        return {("topup", a) for a in amounts} | {("permit", w) for w in wmids}

    def test_a_restore_to_a_time_has_exactly_the_writes_acknowledged_before_it(self):
        self.pgbackrest("--type=full", "backup")
        before = self.write_for(Writers(threads=4), 3)
        time.sleep(0.5)
        target = datetime.datetime.now(datetime.timezone.utc)
        time.sleep(0.5)
        after = self.write_for(Writers(threads=4, first_key=before.counter + 1000), 2)
        self.pgbackrest("check")  # switches WAL and waits until the segment with the last writes is archived

        started = time.monotonic()
        stamp = target.strftime("%Y-%m-%d %H:%M:%S.%f+00")
        # Where the package puts it, readable by every user: the checkout may be in a directory the
        # service user cannot enter (root's home, a mktemp -d folder).
        tool = f"{self.root}/pitr-restore"
        shutil.copy(f"{SOURCE}/scripts/pitr-restore", tool)
        os.chmod(tool, 0o755)
        as_keeper(tool, "--target", stamp, "--pgdata", f"{self.root}/restored",
                  "--config", self.config, "--port", str(RESTORED_PORT), "--socket-dir", f"{self.root}/sock")
        restore_s = time.monotonic() - started

        restored = self.written(f"postgres://127.0.0.1:{RESTORED_PORT}/keeper")
        live = self.written(self.front.uri)
        acked_before = {(c[0], c[1]) for c in before.acked()}
        made_after = {(c[0], c[1]) for c in after.calls}
        print("backup figures: " + str({"acknowledged_before_target": len(acked_before), "written_after_target": len(made_after),
                                        "restored_rows": len(restored), "missing": len(acked_before - restored),
                                        "after_target_restored": len(restored & made_after),
                                        "restore_seconds": round(restore_s, 1)}), flush=True)
        self.assertGreater(len(acked_before), 20)
        self.assertGreater(len(after.acked()), 20)
        self.assertEqual(acked_before - restored, set(), "acknowledged before the target, missing after the restore")
        self.assertEqual(restored & made_after, set(), "made after the target, present after the restore")
        self.assertTrue(acked_before | {(c[0], c[1]) for c in after.acked()} <= live, "the live database lost writes")
        self.assertEqual(collections.Counter(k for k, _ in restored)["topup"],
                         len(self.front.sql(f"SELECT amount FROM topups WHERE card_id = {CARD}",
                                            f"postgres://127.0.0.1:{RESTORED_PORT}/keeper").split()))


if __name__ == "__main__":
    unittest.main(verbosity=2)
