"""keeper-fcgi says when the workers' commits are promised less than docs/design.md's "No
acknowledgement before replication" needs: `--check-config` (the check a start and a reload
make) warns when synchronous_commit is off for the workers' connections, and says nothing when it
is on. The setting comes through PGOPTIONS, for the check's own connections only: the test
stack's cluster (synchronous_commit=off for speed) is left as it is.
Needs scripts/test's stack (KEEPER_TEST_*).
"""
import os
import subprocess
import unittest

STATE = os.environ["KEEPER_TEST_STATE"]
FCGI = os.environ["KEEPER_TEST_FCGI"]


def check_config(synchronous_commit):
    env = dict(os.environ, KEEPER_DATABASE_URL=f"host={STATE}/run dbname=keeper user=keeper_worker",
               KEEPER_CONFIG="/dev/null", PGOPTIONS=f"-c synchronous_commit={synchronous_commit}")
    out = subprocess.run([FCGI, "--check-config"], capture_output=True, text=True, env=env, timeout=60)
    return out.returncode, out.stdout + out.stderr


class Durability(unittest.TestCase):
    def test_off_is_named_with_what_it_costs(self):
        status, said = check_config("off")
        self.assertEqual(status, 0, said)  # a warning, not a refusal
        self.assertIn("schema version", said, "the check reached the database")
        self.assertIn("warning: synchronous_commit is off for the workers' role", said)
        self.assertIn("lost when PostgreSQL crashes", said)

    def test_on_passes_without_a_word(self):
        status, said = check_config("on")
        self.assertEqual(status, 0, said)
        self.assertIn("schema version", said)
        self.assertNotIn("warning", said)


if __name__ == "__main__":
    unittest.main(verbosity=2)
