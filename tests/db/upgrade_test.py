#!/usr/bin/python3
"""Upgrading a database that holds data to this build's schema layout.

tests/db/fixtures/schema-7.sql.gz is a pg_dump of a database that keeper at schema version 7 left
behind, when the call functions were still written inside the numbered migrations 0003, 0004 and
0006 (provisioned with keeperctl, then every call function run at least once, so every table holds
rows). This test restores it, runs this build's `keeperctl migrate`, and checks:
  - every table's rows are unchanged, but for the columns a migration turns into others
    (TRANSFORMED: a session's id into its hash), which hold what the migration makes of them;
  - the migrations recorded under their earlier texts now carry this build's checksums, exactly
    as a fresh install records them;
  - every function's definition (pg_get_functiondef) and comment equals a fresh install's, and so
    do the parent tables' indexes;
  - `keeperctl status` lists every function of db/functions as current, and a second migrate
    changes nothing;
  - a function whose recorded checksum differs is applied again, alone.
tests/db/fixtures/schema-14.sql.gz is the previous release's database (schema version 14 with its
functions, a login, a purse and a card): its workers' calls (fixtures/previous_release_calls.sql)
answer the same before and after this build's migrate, and its functions then equal a fresh
install's (docs/schema.md, "While an upgrade runs").
docs/schema.md ("Functions") describes the layout."""
import gzip
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
FIXTURE = HERE / "fixtures" / "schema-7.sql.gz"
PREVIOUS_RELEASE = HERE / "fixtures" / "schema-14.sql.gz"
PREVIOUS_RELEASE_CALLS = HERE / "fixtures" / "previous_release_calls.sql"
FUNCTIONS = sorted(p.stem for p in (HERE.parents[1] / "db" / "functions").glob("*.sql"))
# (table, old column): what its value becomes, written on the old column, and the new column's name.
TRANSFORMED = {("sessions", "session_id"): ("sha256(convert_to(session_id, 'UTF8'))", "session_hash")}


def transformed(cols: dict[str, str], side: str) -> dict[str, str]:
    """cols with each transformed column replaced: by its expression on the old database
    (side "before"), by the new column's name on the migrated one ("after")."""
    out = dict(cols)
    for (table, column), (expression, new_name) in TRANSFORMED.items():
        if table in out:
            names = [n.strip() for n in out[table].split(",")]
            out[table] = ", ".join((expression if side == "before" else new_name) if n == column else n for n in names)
    return out


def psql(url: str, sql: str) -> str:
    done = subprocess.run(["psql", "-X", "-q", "-tA", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql],
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


def restore(url: str, dump: pathlib.Path) -> None:
    subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url], input=gzip.decompress(dump.read_bytes()),
                   capture_output=True, check=True)


def previous_release_calls(url: str, run: str) -> str:
    return subprocess.run(["psql", "-X", "-q", "-tA", "-v", f"n={run}", "-d", url, "-f", str(PREVIOUS_RELEASE_CALLS)],
                          capture_output=True, text=True, check=True).stdout.strip()


def keeperctl(url: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = dict(os.environ, KEEPER_CONFIG="/dev/null", KEEPER_ADMIN_DATABASE_URL=url, KEEPER_DATABASE_URL=url)
    done = subprocess.run([os.environ["KEEPER_TEST_KEEPERCTL"], *args], capture_output=True, text=True, env=env)
    if check and done.returncode != 0:
        raise AssertionError(f"keeperctl {' '.join(args)}: {done.returncode}\n{done.stdout}{done.stderr}")
    return done


def tables(url: str) -> list[str]:
    """Every table and partitioned parent of the schema (partitions are read through their parent)."""
    return psql(url, "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                     "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition "
                     "AND c.relname NOT IN ('schema_migrations', 'schema_definitions') ORDER BY 1").split("\n")


def columns(url: str) -> dict[str, str]:
    """Each table's columns, as a select list in their order."""
    rows = psql(url, "SELECT table_name || ' ' || string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position) "
                     "FROM information_schema.columns WHERE table_schema = 'public' GROUP BY table_name")
    return dict(r.split(" ", 1) for r in rows.split("\n") if r)


def data_digest(url: str, kept_columns: dict[str, str] | None = None) -> dict[str, str]:
    """Each table's row count and rows' digest; with kept_columns, of those columns only (a later
    migration may add a column, whose values old rows do not have)."""
    cols = kept_columns or columns(url)
    return {t: psql(url, f"SELECT count(*) || ':' || coalesce(md5(string_agg(r::text, E'\\n' ORDER BY r::text)), '') "
                         f"FROM (SELECT {cols[t]} FROM {t}) r") for t in tables(url)}


def functions(url: str) -> dict[str, str]:
    rows = psql(url, "SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' || E'\\x1f' || "
                     "pg_get_functiondef(p.oid) || E'\\x1f' || coalesce(obj_description(p.oid, 'pg_proc'), '') || E'\\x1e' "
                     "FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' ORDER BY 1")
    out = {}
    for row in filter(None, (r.strip("\n") for r in rows.split("\x1e"))):
        name, definition, comment = row.split("\x1f")
        out[name] = definition + "\n-- comment: " + comment
    return out


def parent_indexes(url: str) -> list[str]:
    return psql(url, "SELECT i.indexdef FROM pg_indexes i JOIN pg_class c ON c.relname = i.tablename "
                     "WHERE i.schemaname = 'public' AND NOT c.relispartition ORDER BY 1").split("\n")


def recorded_checksums(url: str) -> str:
    return psql(url, "SELECT string_agg(version || ' ' || checksum, ', ' ORDER BY version) FROM schema_migrations")


def main() -> int:
    admin = os.environ["KEEPER_TEST_ADMIN_URL"]
    names = [f"keeper_upgrade_{os.getpid()}_{kind}" for kind in ("old", "fresh", "previous")]
    old, fresh, previous = (f"{admin} dbname={n}" for n in names)
    problems = []

    def expect(ok: bool, what: str) -> None:
        print(("ok: " if ok else "FAILED: ") + what)
        if not ok:
            problems.append(what)

    try:
        for n in names:
            psql(admin, f"DROP DATABASE IF EXISTS {n}")
            psql(admin, f"CREATE DATABASE {n}")
        restore(old, FIXTURE)
        old_columns = columns(old)
        before = data_digest(old, transformed(old_columns, "before"))
        rows = sum(int(v.split(":")[0]) for v in before.values())
        print(f"fixture: {len(before)} tables, {rows} rows, schema version {psql(old, 'SELECT max(version) FROM schema_migrations')}")
        filled = [t for t, v in before.items() if not v.startswith("0:")]
        expect(rows > 100 and len(filled) >= 15, f"the fixture holds data ({len(filled)} tables with rows)")

        upgrade = keeperctl(old, "migrate").stdout
        print(upgrade, end="")
        expect(all(f"recorded {v}_" in upgrade for v in (3, 4, 6)), "0003, 0004 and 0006 recorded under their current texts")
        expect(all(f"defined {f}\n" in upgrade for f in FUNCTIONS), f"all {len(FUNCTIONS)} functions of db/functions applied")
        keeperctl(fresh, "migrate")

        after = data_digest(old, {**columns(old), **transformed(old_columns, "after")})
        expect({t: after.get(t) for t in before} == before, "every table's rows unchanged")
        added = sorted(set(after) - set(before))
        expect(all(after[t].startswith("0:") for t in added), f"tables added by later migrations start empty: {added}")
        expect(recorded_checksums(old) == recorded_checksums(fresh), "schema_migrations checksums as a fresh install's")
        upgraded_functions, fresh_functions = functions(old), functions(fresh)
        for name in sorted(set(upgraded_functions) | set(fresh_functions)):
            if upgraded_functions.get(name) != fresh_functions.get(name):
                print(f"--- {name} upgraded:\n{upgraded_functions.get(name)}\n--- fresh:\n{fresh_functions.get(name)}")
        expect(upgraded_functions == fresh_functions,
               f"all {len(fresh_functions)} functions' pg_get_functiondef and comments equal a fresh install's")
        named = {n.split("(")[0] for n in fresh_functions}
        expect(named == set(FUNCTIONS) - {"keeper_previous_release"},
               f"{len(FUNCTIONS) - 1} function names, one per file (and keeper_previous_release.sql's signatures of them)")
        expect(parent_indexes(old) == parent_indexes(fresh), "the tables' indexes equal a fresh install's")

        status = keeperctl(old, "status")
        print(status.stdout, end="")
        expect(all(f"current  {f}" in status.stdout for f in FUNCTIONS), "keeperctl status: every function current")
        expect("earlier text" not in status.stdout, "keeperctl status: no migration under an earlier text")
        again = keeperctl(old, "migrate").stdout
        expect("defined" not in again and "recorded" not in again and "applied" not in again, f"a second migrate changes nothing: {again!r}")

        psql(old, "UPDATE schema_definitions SET checksum = 'edited' WHERE name = 'keeper_audit'")
        expect("changed  keeper_audit" in keeperctl(old, "status", check=False).stdout, "keeperctl status shows a changed function")
        changed = keeperctl(old, "migrate").stdout
        expect(changed.count("defined") == 1 and "defined keeper_audit\n" in changed, f"a changed function is applied again, alone: {changed!r}")

        restore(previous, PREVIOUS_RELEASE)
        before = previous_release_calls(previous, "before")
        expect(before.split() == ["0", "10", "0", "0", "5|1", "5", "5", "4"], f"the previous release's calls on its schema: {before!r}")
        keeperctl(previous, "migrate")
        after = previous_release_calls(previous, "after")
        expect(after == before, f"the previous release's calls answer the same after migrate: {after!r}")
        expect(psql(previous, "SELECT balance FROM purses WHERE purse = 'Z000000000001'") == "2.50", "both top-ups applied")
        expect(psql(previous, "SELECT count(*) FROM audit_calls WHERE login = 'alice'") == "16", "every call audited, by login")
        expect(functions(previous) == fresh_functions, "the previous release's functions, migrated, equal a fresh install's")
    finally:
        for n in names:
            subprocess.run(["psql", "-X", "-q", "-d", admin, "-c", f"DROP DATABASE IF EXISTS {n} WITH (FORCE)"], capture_output=True)
    print(f"upgrade test: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
