#!/usr/bin/python3
"""The gate's verdict (bench/run_against.py, docs/performance.md "The gate"): a case more than 3 %
slower than REF, or a failed call, gives exit status 3 and names the case; within 3 % gives 0."""
import contextlib
import io
import os
import pathlib
import unittest

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench"
os.environ.update(BENCH_STATE="/nonexistent", BENCH_AGAINST_STATE="/nonexistent", BENCH_AGAINST="REF",
                  BENCH_KEEPER_PORT="1", BENCH_AGAINST_PORT="2")
import run_against  # bench/, on PYTHONPATH


def runs(*pairs, failed=0):
    """One case, a repeat per (tree, REF) pair of req/s."""
    result = lambda rps, bad: {"rps": rps, "p99": 1.0, "errors": bad, "non2xx": 0}
    return {"R2": {"tree": [result(t, failed) for t, _ in pairs], "against": [result(a, 0) for _, a in pairs]}}


def verdict(case_runs):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = run_against.report(case_runs)
    return status, out.getvalue()


class Verdict(unittest.TestCase):
    def test_within_three_percent_passes(self):
        status, text = verdict(runs((98, 100), (101, 100), (97.5, 100)))
        self.assertEqual(status, 0, text)
        self.assertIn("no case slower than REF", text)
        self.assertIn("R2=0.98x", text)

    def test_a_slower_case_is_named(self):
        status, text = verdict(runs((95, 100), (96, 100), (99, 100)))
        self.assertEqual(status, 3, text)
        self.assertIn("R2 0.96x", text)

    def test_failed_calls_void_the_ratio(self):
        status, text = verdict(runs((120, 100), (120, 100), failed=1))
        self.assertEqual(status, 3, text)
        self.assertIn("calls failed", text)


if __name__ == "__main__":
    unittest.main()
