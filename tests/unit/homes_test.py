#!/usr/bin/python3
"""Every folder of the product includes only the folders below it (docs/design.md, "Homes").

The order, lowest first:
  core/api  <-  core/domain  <-  core/wire  <-  core/pages  <-  core/pipeline
  config/          the configuration file, over core/api's settings
  db/secrets/      sealing secrets at rest
  db/schema/       the migrator, roles and the database's start-up check, over db/secrets/
  db/store/        the PostgreSQL store, over core/ and db/secrets/
  keeperctl/       the operator's tool, over core/, config/, db/secrets/ and db/schema/
  fcgi/            the FastCGI front: sockets, the protocol, a worker's connections, over core/
  pool/            keeper-fcgi's processes, over core/, config/, db/ and fcgi/ but not keeperctl

Each #include "..." of a folder's .cpp and .hpp files is checked against ALLOWED; a name without a
folder is the including file's own folder. Third-party headers have homes too: libxml2 and the JSON
parser never in core/api or core/domain (operations never see a wire format), libpqxx only under
db/ and pool/, libfcgi only in fcgi/. The CMake libraries enforce the same at link time; this
names the offending line."""
import pathlib
import re
import sys

CORE_WINGS = ["core/api", "core/domain", "core/wire", "core/pages", "core/pipeline"]
ALLOWED = {
    **{wing: set(CORE_WINGS[: i + 1]) for i, wing in enumerate(CORE_WINGS)},
    "config": {"core/api", "config"},
    "db/secrets": {"db/secrets"},
    "db/schema": {"core/api", "db/secrets", "db/schema"},
    "db/store": {*CORE_WINGS, "db/secrets", "db/store"},
    "keeperctl": {*CORE_WINGS, "config", "db/secrets", "db/schema", "keeperctl"},
    "fcgi": {*CORE_WINGS, "fcgi"},
    "pool": {*CORE_WINGS, "config", "db/secrets", "db/schema", "db/store", "fcgi", "pool"},
}
# Third-party headers and the homes they are kept out of.
KEPT_OUT = [
    (re.compile(r"#include <(libxml/|nlohmann/)"), {"core/api", "core/domain", "config"}),
    (re.compile(r"#include <pqxx/"), {*CORE_WINGS, "config", "fcgi"}),
    (re.compile(r"#include <(fcgi|fastcgi\.h)"), {*CORE_WINGS, "config", "db/secrets", "db/schema", "db/store", "keeperctl", "pool"}),
]
INCLUDE = re.compile(r'#include "([^"]+)"')


def home_of(relative: str) -> str | None:
    """The ALLOWED key a path belongs to: the longest one it starts with."""
    folder = relative.rsplit("/", 1)[0] if "/" in relative else ""
    best = None
    for home in ALLOWED:
        if folder == home or folder.startswith(home + "/"):
            if best is None or len(home) > len(best):
                best = home
    return best


def main() -> int:
    root = pathlib.Path(__file__).resolve().parents[2]
    problems = []
    files = sorted(p for home in ALLOWED for p in (root / home).glob("*") if p.suffix in (".hpp", ".cpp"))
    files += sorted(p for p in (root / "core" / "domain" / "operations").glob("*.?pp"))
    upward = 0
    for path in files:
        rel = path.relative_to(root).as_posix()
        mine = home_of(rel)
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if (m := INCLUDE.match(line)):
                target = m.group(1) if "/" in m.group(1) else f"{rel.rsplit('/', 1)[0]}/{m.group(1)}"
                theirs = home_of(target)
                if theirs not in ALLOWED[mine]:
                    upward += 1
                    problems.append(f"{rel}:{number}: {mine}/ includes {theirs or target}: {line}")
            for pattern, homes in KEPT_OUT:
                if mine in homes and pattern.match(line):
                    problems.append(f"{rel}:{number}: {line.split()[1]} does not belong in {mine}/")
    counts = {}
    for path in files:
        counts[path.parent.relative_to(root).as_posix()] = counts.get(path.parent.relative_to(root).as_posix(), 0) + 1
    if len(files) < 100:
        problems.append(f"only {len(files)} files found: is this the tree?")
    for p in problems:
        print(p)
    print("files per folder: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    print(f"{len(files)} files checked, {upward} includes that run the wrong way, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
