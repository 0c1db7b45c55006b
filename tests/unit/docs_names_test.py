#!/usr/bin/python3
"""What the docs and comments name exists (../shared/STYLE.md point 16): a newcomer who follows a
name from README, docs/, a man page or a comment finds it.

- every keeper_* name in README.md, docs/*.md, docs/man/*.8 and the code's comments (a metric,
  role, SQL function, nginx variable, alert job) is defined by code outside a comment;
- every keeperctl command and option they name is one keeperctl has;
- every path of the tree named in them, or in a comment of the code, exists;
- every configuration key they name is one config/setting_keys.cpp defines, and docs/configuration.md
  has a row for each of them;
- a list of the transports names them all, as the transport table (core/wire/transport_table.cpp)
  has them.
Exit 1 with each finding; ctest label unit (no stack needed).
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs/man").glob("*.8"))]
CODE_DIRS = ["core", "fcgi", "pool", "db", "keeperctl", "config", "nginx", "packaging", "systemd", "scripts", "bench", "cmake", "tests"]
CODE_SUFFIXES = {".cpp", ".hpp", ".sql", ".sh", ".py", ".conf", ".yml", ".cmake", ".txt", ".service", ".socket",
                 ".timer", ".json", ""}
NOT_TREE_PATHS = set()  # words that read like a path of the tree but are not one


def code_files():
    for d in CODE_DIRS:
        for p in (ROOT / d).rglob("*"):
            if p.is_file() and (p.suffix in CODE_SUFFIXES) and "node_modules" not in p.parts:
                yield p


def text(p):
    return p.read_text(encoding="utf-8", errors="replace")


findings = []

# keeper_* names: defined by the code, SQL, config and packaging (outside their comments), and
# named in the docs and in comments.
COMMENT = re.compile(r"(?:^|(?<=\s))(?://|#|--)(?:\s(.*))?$")
# A test may name something only to show it is absent, so what the tests define counts for the
# tests' own comments alone.
defined, defined_by_tests, in_comments = set(), set(), []
for p in code_files():
    in_tests = p.parts[len(ROOT.parts)] == "tests"
    for n, line in enumerate(text(p).splitlines(), 1):
        comment = COMMENT.search(line)
        names = re.findall(r"keeper_[a-z0-9_]+", line[:comment.start()] if comment else line)
        (defined_by_tests if in_tests else defined).update(names)
        if comment:
            in_comments += [(f"{p.relative_to(ROOT)}:{n}", name, in_tests)
                            for name in re.findall(r"keeper_[a-z0-9_]+", comment.group(1) or "")]
# A file of db/functions is a definition by its name (keeperctl status lists it), whatever it defines.
defined.update(p.stem for p in (ROOT / "db/functions").glob("*.sql"))
named = [(str(doc.relative_to(ROOT)), name, False) for doc in DOCS
         for name in sorted(set(re.findall(r"keeper_[a-z0-9_]+", text(doc))))]
for where, name, in_tests in named + in_comments:
    known = defined | defined_by_tests if in_tests else defined
    base = re.sub(r"_(bucket|sum|count)$", "", name)
    if name not in known and base not in known and not name.endswith("_"):
        findings.append(f"{where}: names {name}, which nothing defines")

# keeperctl commands, as commands are written (in code spans and code blocks of the Markdown, and
# anywhere in a man page): the table in keeperctl/keeperctl.cpp and the three it answers itself.
source = text(ROOT / "keeperctl/keeperctl.cpp")
commands = set(re.findall(r'^\s*\{"([a-z-]+)",\s*\{"', source, re.M)) | {"api-reference", "nginx-errors", "openapi", "new-key"}


def command_text(doc):
    body = text(doc)
    if doc.suffix == ".8":
        return body.replace("\\-", "-")
    spans = re.findall(r"`([^`\n]+)`", body)
    blocks = [line for line in body.splitlines() if line.startswith("    ")]
    return "\n".join(spans + blocks)


options = set(re.findall(r'"(--[a-z][a-z-]*)', source))
for doc in DOCS:
    for cmd in re.findall(r"keeperctl(?: --config \S+)? ([a-z][a-z-]*)", command_text(doc)):
        if cmd not in commands and not (cmd.endswith("-") and any(c.startswith(cmd) for c in commands)):
            findings.append(f"{doc.relative_to(ROOT)}: keeperctl {cmd}: no such command ({', '.join(sorted(commands))})")
    for invocation in re.findall(r"keeperctl((?: [^\s`|;&]+)+)", command_text(doc)):
        for option in re.findall(r"(--[a-z][a-z-]*)", invocation):
            if option not in options:
                findings.append(f"{doc.relative_to(ROOT)}: keeperctl {option}: no such option ({', '.join(sorted(options))})")

# Paths of the tree, in the docs and in the code's comments.
TREE = r"(?<![\w/.-])((?:core|db|fcgi|pool|keeperctl|config|nginx|systemd|packaging|scripts|tests|docs|bench|cmake)/[\w./@-]*[\w@-])"
# Applied migrations are never edited (their checksums are recorded), so their comments keep the
# paths of their day; placeholders such as NNNN_name.sql name no file.
for p in [*DOCS, *(f for f in code_files() if "migrations" not in f.parts)]:
    lines = text(p).splitlines()
    for n, line in enumerate(lines, 1):
        where = line if p in DOCS else ((COMMENT.search(line).group(1) or "") if COMMENT.search(line) else "")
        for path in re.findall(TREE, where):
            path = path.rstrip(".")
            if path in NOT_TREE_PATHS or "<" in path or "*" in path or "NNNN" in path or path.endswith("/name.sql"):
                continue
            if not (ROOT / path).exists() and not (ROOT / (path + ".cpp")).exists():
                findings.append(f"{p.relative_to(ROOT)}:{n}: names {path}, which is not in the tree")

# Configuration keys: what config/setting_keys.cpp defines. A key is written as a code span; a
# span that reads like a key (a setting's unit or kind at its end) must be one. Names of the same
# shape that belong to PostgreSQL, nginx or Patroni are not keeper's, nor are metrics.
keys = set(re.findall(r'\bkey\("([a-z_]+)", &settings::', text(ROOT / "config/setting_keys.cpp")))
assert len(keys) > 20, "config/setting_keys.cpp's rows were not found: the pattern above needs their new shape"
KEY_SHAPE = re.compile(r"^[a-z]+(?:_[a-z0-9]+)*_(?:ms|seconds|hours|days|months|url|file|listen|rows|attempts|failures|"
                       r"amount|limit|connections|only|namespace|form)$")
NOT_KEYS = {"max_connections", "superuser_reserved_connections", "daily_limit", "auth_failures", "app_auth_failures"}  # PostgreSQL's; columns
for doc in DOCS:
    for span in sorted(set(re.findall(r"`([a-z0-9_]+)(?: = [^`]*)?`", text(doc)))):
        metric = span.startswith(("keeper_", "process_"))
        if KEY_SHAPE.match(span) and span not in keys and span not in NOT_KEYS and not metric:
            findings.append(f"{doc.relative_to(ROOT)}: names `{span}`, which is no configuration key")
table = set(re.findall(r"^\| ([a-z_]+) \|", text(ROOT / "docs/configuration.md"), re.M)) - {"key"}
for key in sorted(keys - table):
    findings.append(f"docs/configuration.md: no row for the configuration key {key}")
for key in sorted(table - keys):
    findings.append(f"docs/configuration.md: a row for {key}, which is no configuration key")

# Transports: a sentence (of the docs, or of a comment) that lists three or more of them lists all
# of them.
titles = re.findall(r'transport_row\{transport::\w+, "\w+", "([^"]+)"', text(ROOT / "core/wire/transport_table.cpp"))
for p in [*DOCS, *code_files()]:
    paragraphs = re.split(r"\n\s*(?://|#|--)?\s*\n", text(p).replace("\\-", "-"))
    for paragraph in paragraphs:
        flat = re.sub(r"\s*\n\s*(?://|#|--|\.B|\.I)?\s*", " ", paragraph)
        for sentence in re.split(r"[;|]|\.\s+(?=[A-Z(`])", flat):
            named = [t for t in titles if re.search(re.escape(t) + r"(?!\.?\d)", sentence)]
            if 3 <= len(named) < len(titles):
                missing = ", ".join(t for t in titles if t not in named)
                findings.append(f"{p.relative_to(ROOT)}: lists transports without {missing}: {sentence[:100]}...")

# Endpoints: every path the shipped nginx files route to keeper (an exact location, or an
# alternation of plain names) is a code span of docs/operations.md, which says who may call it.
routed = set()
for conf in ("nginx/keeper-locations.conf", "nginx/keeper-site.conf", "nginx/keeper-front-locations.conf"):
    for m in re.finditer(r"^\s*location\s+(=|~|\^~)\s+(\S+)\s*\{", text(ROOT / conf), re.M):
        kind, where = m.groups()
        if where.startswith("/_keeper_error") or where.startswith("@"):
            continue
        if kind == "~":
            alternation = re.fullmatch(r"\^/\(([a-z|]+)\)\$", where)
            routed |= {"/" + name for name in alternation.group(1).split("|")} if alternation else set()
        else:
            routed.add(where)
operations_spans = set(re.findall(r"`([^`]+)`", text(ROOT / "docs/operations.md")))
for path in sorted(routed - operations_spans):
    findings.append(f"docs/operations.md: no word of the endpoint {path} that nginx routes")

# Response headers: every header the shipped nginx files add is named in the docs a client or an
# operator reads.
client_docs = "".join(text(ROOT / d) for d in ("docs/api-decisions.md", "docs/operations.md", "docs/api.md"))
added = set()
for conf in sorted((ROOT / "nginx").glob("*.conf")):
    added |= set(re.findall(r"^\s*add_header\s+([A-Za-z-]+)", text(conf), re.M))
for header in sorted(added):
    if header.lower() not in client_docs.lower():
        findings.append(f"docs: no word of the response header {header} that nginx adds")

for f in findings:
    print(f)
print(f"{len(findings)} finding(s)")
sys.exit(1 if findings else 0)
