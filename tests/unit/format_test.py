#!/usr/bin/python3
"""Every C++ file of the product, its tests and the bench is laid out as .clang-format says
(Debian's clang-format 14): `clang-format -i <file>` fixes one this test names. The previous
release's statements fixture (tests/db/fixtures/) is that release's file as it was, and stays so."""
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
FOLDERS = ["core", "fcgi", "db", "config", "keeperctl", "tests", "bench"]


def sources():
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".cpp", ".hpp") and "fixtures" not in path.parts:
                yield path


def main():
    files = [str(p) for p in sources()]
    if not files:
        sys.exit("no C++ files found")
    out = subprocess.run(["clang-format", "--dry-run", "--Werror", *files], capture_output=True, text=True,
                         cwd=ROOT)
    if out.returncode != 0:
        named = sorted({line.split(":", 1)[0] for line in out.stderr.splitlines() if ": error:" in line})
        print("not as .clang-format lays it out (clang-format -i fixes them):", *named, sep="\n  ")
        sys.exit(1)
    print(f"{len(files)} files as .clang-format lays them out")


if __name__ == "__main__":
    main()
