"""The benchmark's load (bench/make_load.py) runs against this schema: its wrk scripts are written,
and each pgbench script of the database's ceiling (docs/performance.md, "The database's ceiling")
calls the same functions as the worker with a frame of every field the worker binds
(db/store/call_statement.hpp, call_frame_fields), so a field added there, or a function's arguments
changed, fail here and not first in a benchmark run. The bench's users are not seeded: the calls
answer "session not found" and change nothing but their audit rows.
Needs scripts/test's stack (KEEPER_TEST_*).
"""
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
STATE = os.environ["KEEPER_TEST_STATE"]
PGBENCH = "/usr/lib/postgresql/15/bin/pgbench"


class BenchLoad(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        out = subprocess.run([sys.executable, str(ROOT / "bench/make_load.py")], capture_output=True, text=True,
                             env=dict(os.environ, BENCH_STATE=cls.dir.name), timeout=60)
        assert out.returncode == 0, out.stderr
        cls.bench = pathlib.Path(cls.dir.name) / "bench"

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_every_case_has_its_script(self):
        for case in ("R1", "R2", "R2k", "R3", "R3k", "R4"):
            self.assertTrue((self.bench / f"{case}.lua").stat().st_size > 0, case)

    def test_the_frame_has_every_field_the_worker_binds(self):
        fields = re.search(r"call_frame_fields\{([^}]*)\}", (ROOT / "db/store/call_statement.hpp").read_text()).group(1)
        for case in ("R2", "R3", "R4"):
            row = re.search(r"ROW\((.*?)\)::keeper_call", (self.bench / f"{case}.pgbench").read_text()).group(1)
            self.assertEqual(len(row.split(",")), fields.count('"') // 2, (case, row))

    def test_each_ceiling_script_runs_against_the_schema(self):
        for case in ("R2", "R3", "R4"):
            out = subprocess.run([PGBENCH, "-h", f"{STATE}/run", "-U", "keeper_worker", "-n", "-t", "3",
                                  "-f", str(self.bench / f"{case}.pgbench"), "keeper"],
                                 capture_output=True, text=True, timeout=60)
            self.assertEqual(out.returncode, 0, f"{case}: {out.stderr[-800:]}")
            self.assertIn("number of failed transactions: 0", out.stdout, case)


if __name__ == "__main__":
    unittest.main(verbosity=2)
