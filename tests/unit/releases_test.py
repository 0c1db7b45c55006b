#!/usr/bin/python3
"""The releases the tree names (packaging/releases.tsv) are what their commits hold, and this tree
is the release after the last (docs/schema.md, "Releases"):
- each row's commit, where the clone has it, has as many files in db/migrations/ as the row's
  schema version, and, once releases were named in this file, project VERSION equal to the row's
  version (earlier releases all said 0.1.0 and were named afterwards);
- this tree's version is greater than the last row's, and its schema later;
- tests/db/fixtures/statements-<last>.hpp, the statements the previous release's workers prepare
  (the db test previous_release prepares each against this schema), is that commit's
  db/store/statements.hpp byte for byte.
A clone without the history (a shallow one) checks the rows it can, and says which it could not."""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def git(*args):
    r = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True)
    return r.stdout if r.returncode == 0 else None


def version_of(cmake_text):
    return tuple(int(x) for x in re.search(r"project\(keeper VERSION (\d+)\.(\d+)\.(\d+)", cmake_text).groups())


rows = [line.split("\t") for line in (ROOT / "packaging/releases.tsv").read_text().splitlines()
        if line and not line.startswith("#") and not line.startswith("version\t")]
problems, unchecked = [], []
for version, commit, schema, _date in rows:
    cmake = git("show", f"{commit}:CMakeLists.txt")
    if cmake is None:
        unchecked.append(version)
        continue
    named_then = git("show", f"{commit}:packaging/releases.tsv") is not None
    if named_then and ".".join(map(str, version_of(cmake.decode()))) != version:
        problems.append(f"{version}: its commit's project VERSION is {version_of(cmake.decode())}")
    migrations = git("ls-tree", "--name-only", f"{commit}:db/migrations").decode().split()
    if len(migrations) != int(schema):
        problems.append(f"{version}: its commit has {len(migrations)} migrations, the row says {schema}")

last_version, last_commit, last_schema, _ = rows[-1]
this = version_of((ROOT / "CMakeLists.txt").read_text())
if this <= tuple(int(x) for x in last_version.split(".")):
    problems.append(f"this tree's version {this} is not after the last release {last_version}")
if len(list((ROOT / "db/migrations").glob("*.sql"))) <= int(last_schema):
    problems.append("this tree's schema is not later than the last release's")
fixture = ROOT / f"tests/db/fixtures/statements-{last_version}.hpp"
if not fixture.exists():
    problems.append(f"{fixture.relative_to(ROOT)} is missing: the previous release's statements")
else:
    tagged = git("show", f"{last_commit}:db/store/statements.hpp")
    if tagged is None:
        unchecked.append(f"{last_version} statements")
    elif tagged != fixture.read_bytes():
        problems.append(f"{fixture.relative_to(ROOT)} differs from {last_version}'s db/store/statements.hpp")

for p in problems:
    print(p)
print(f"{len(rows)} releases, {len(problems)} problems" + (f"; not in this clone: {', '.join(unchecked)}" if unchecked else ""))
sys.exit(1 if problems else 0)
