#!/usr/bin/python3
"""core/'s wings depend one way: api <- domain <- wire <- pages <- core (the pipeline).

Every #include "core/..." in core/ is checked against that order, and the domain and api wings
may not include libxml2 or the JSON parser: operations never see a wire format. The CMake
libraries enforce the same at link time; this names the offending line."""
import pathlib
import re
import sys

ORDER = ["api", "domain", "wire", "pages", "core"]
WIRE_ONLY = re.compile(r"#include <(libxml/|nlohmann/)")
INCLUDE = re.compile(r'#include "core/([^"]+)"')


def wing_of(relative: pathlib.PurePath) -> str:
    """core/api/x.hpp -> api; core/x.hpp (the pipeline) -> core."""
    parts = relative.parts
    return parts[1] if len(parts) > 2 else "core"


def main() -> int:
    root = pathlib.Path(__file__).resolve().parents[2]
    problems = []
    files = sorted(p for p in (root / "core").rglob("*") if p.suffix in (".hpp", ".cpp"))
    for path in files:
        rel = path.relative_to(root)
        mine = ORDER.index(wing_of(rel))
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if (m := INCLUDE.match(line)):
                theirs = wing_of(pathlib.PurePath("core", m.group(1)))
                if ORDER.index(theirs) > mine:
                    problems.append(f"{rel}:{number}: {wing_of(rel)} includes {theirs}: {line}")
            if mine <= ORDER.index("domain") and WIRE_ONLY.match(line):
                problems.append(f"{rel}:{number}: a wire format in {wing_of(rel)}: {line}")
    if len(files) < 60:
        problems.append(f"only {len(files)} files under core/: is this the tree?")
    for p in problems:
        print(p)
    print(f"{len(files)} files checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
