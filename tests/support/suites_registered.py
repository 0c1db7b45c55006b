#!/usr/bin/python3
"""A Boost.Test tier's suites are each a ctest test, found in its files' text (tests/CMakeLists.txt,
keeper_test_tier): a suite declared in a way that reading misses would never run. Usage:
suites_registered.py BINARY SUITE...; fails naming each suite the binary holds that the tier did not
find, or one it found that the binary lacks."""
import subprocess
import sys

binary, listed = sys.argv[1], set(sys.argv[2:])
out = subprocess.run([binary, "--list_content"], capture_output=True, text=True, check=True)
held = {line.rstrip("*").strip() for line in (out.stdout + out.stderr).splitlines() if line and not line.startswith(" ")}
missing, stale = sorted(held - listed), sorted(listed - held)
for suite in missing:
    print(f"suite {suite} is in {binary} but its tier did not find it (tests/CMakeLists.txt, keeper_test_tier): ctest never runs it")
for suite in stale:
    print(f"the tier names {suite}, which {binary} does not hold")
print(f"{len(held)} suites in the binary, {len(listed)} listed")
sys.exit(1 if missing or stale else 0)
