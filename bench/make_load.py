"""Writes the benchmark's data (SQL) and wrk scripts (Lua) into $BENCH_STATE/bench.

1000 logins bench1..bench1000, each with an authenticated session bench-session-N, a purse and a
card; the wrk scripts pick one of them at random per request, so writes spread over many rows as
real traffic does (one login's calls serialise on its row by design).
"""
import hashlib
import os
import pathlib
import random
import re

import measure

STATE = os.environ["BENCH_STATE"]
USERS = 1000
# The users the wrk scripts call as: all USERS, or (for the large database, bench/make_large.py)
# SAMPLE of logins 1..BENCH_CALLERS picked at random, so calls spread over all its users.
CALLERS = int(os.environ.get("BENCH_CALLERS", USERS))
SAMPLE = 20000
NS = "http://tempuri.org/"
random.seed(7)

SEED_SQL = f"""
INSERT INTO logins (login, shared_secret) SELECT 'bench' || i, 'secret' || i FROM generate_series(1, {USERS}) i;
INSERT INTO sessions (session_hash, login_id, authenticated_at)
  SELECT keeper_session_hash('bench-session-' || substr(login, 6)), id, now() FROM logins WHERE login LIKE 'bench%';
INSERT INTO purses (purse, login_id) SELECT 'Z' || lpad(substr(login, 6), 12, '0'), id FROM logins WHERE login LIKE 'bench%';
INSERT INTO cards (id, login_id) SELECT substr(login, 6)::bigint, id FROM logins WHERE login LIKE 'bench%';
ANALYZE;
"""


def envelope(op, fields):
    args = "".join(f"<{k}>{v}</{k}>" for k, v in fields)
    return ('<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">'
            f'<soap:Body><{op} xmlns="{NS}">{args}</{op}></soap:Body></soap:Envelope>')


# With keyed, every request carries an Idempotency-Key of its own (docs/api-decisions.md): wrk's
# threads each seed their generator from a fresh table's address, and a counter makes each key
# new, so no request is a repeat.
KEYED = """
local sent = 0
math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)"), 16))
local prefix = string.format("%08x%08x", math.random(0, 0x7fffffff), math.random(0, 0x7fffffff))
local function key()
  sent = sent + 1
  return prefix .. "-" .. sent
end
"""


def lua(path, op, bodies, keyed=False):
    with open(path, "w") as f:
        f.write(f'local headers = {{["Content-Type"] = "text/xml; charset=utf-8", ["SOAPAction"] = "\\"{NS}{op}\\""}}\n')
        f.write("local bodies = {\n")
        for b in bodies:
            f.write(f"  [==[{b}]==],\n")
        f.write("}\n")
        if keyed:
            f.write(KEYED)
        f.write("request = function()\n")
        if keyed:
            f.write('  headers["Idempotency-Key"] = key()\n')
        f.write(f'  return wrk.format("POST", "{path_of(op)}", headers, bodies[math.random(#bodies)])\nend\n')


# The database's own ceiling (docs/performance.md, "The database's ceiling"): pgbench calls the
# same keeper_* functions the worker's statements call (db/store/statements.hpp), with the same
# users, the settings' defaults and a request id of keeper's shape, which is also the call's trace
# id (the trace nginx starts), each statement in autocommit as the worker sends it. R4 also reads
# the login's secret first, as the worker does. The worker passes the session's hash, which it
# computes itself; pgbench has no digest of its own, so the ceiling's statements compute it in the
# database (keeper_session_hash, a few thousand instructions): the ceiling does a little more
# work a call than keeper's database does.
REQUEST_ID = measure.time_ordered_id("clock_timestamp()")
# The frame's fields, in order, as the worker binds them: read from db/store/call_statement.hpp
# (call_frame_fields), so that a field added there cannot be missed here; each one's value is the
# worker's for a call without a key, with the trace nginx starts (its request id), and the
# deadline the worker passes: the call's budget from its request id's time.
FRAME_SOURCE = pathlib.Path(__file__).resolve().parents[1] / "db/store/call_statement.hpp"
FRAME_VALUES = {"request_id": "r.id", "operation": "'{operation}'", "key": "''", "fingerprint": "''",
                "key_used": "false", "trace_id": "r.id", "deadline": "clock_timestamp() + interval '10 seconds'",
                "host_recorded": "true"}


def frame_fields():
    found = re.search(r"call_frame_fields\{([^}]*)\}", FRAME_SOURCE.read_text())
    if not found:
        raise SystemExit(f"{FRAME_SOURCE}: no call_frame_fields")
    return re.findall(r'"([a-z_]+)"', found.group(1))


def frame_row(operation):
    fields = frame_fields()
    if missing := [f for f in fields if f not in FRAME_VALUES]:
        raise SystemExit(f"bench/make_load.py: no value for the frame's field(s) {', '.join(missing)}")
    return "ROW(" + ", ".join(FRAME_VALUES[f].format(operation=operation) for f in fields) + ")::keeper_call"


def call(function, operation, args):
    return f"SELECT {function}({frame_row(operation)}, {args}) " + "FROM (SELECT {rid} AS id) r;"


CEILING = {
    "R2": [call("keeper_set_account_permits", "SetAccountPermits",
                "keeper_session_hash('bench-session-' || :u), 86400, random() < 0.5, random() < 0.5, random() < 0.5")],
    "R3": [call("keeper_topup", "TopupPurseFromAtmCard", "keeper_session_hash('bench-session-' || :u), 86400, "
                "'Z' || lpad(:u::text, 12, '0'), :u, ((1 + floor(random() * 999)) / 100)::numeric, 15000, 50000")],
    "R4": ["SELECT shared_secret FROM logins WHERE login = 'bench' || :u;",
           call("keeper_authenticate", "Authenticate", "'bench' || :u, keeper_session_hash('bench-session-' || :u), true, 900, 5")],
}


def pgbench_script(path, statements):
    with open(path, "w") as f:
        f.write(f"\\set u random(1, {USERS})\n")
        for s in statements:
            f.write(s.format(rid=REQUEST_ID) + "\n")


def path_of(op):
    return {"GetUtcNow": "/GlobalApi.asmx", "Authenticate": "/SimpleAuthApi.asmx"}.get(op, "/AccountApi.asmx")


def flag():
    return random.choice(["true", "false"])


def main():
    out = os.path.join(STATE, "bench")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "seed.sql"), "w") as f:
        f.write(SEED_SQL)
    users = range(1, USERS + 1) if CALLERS == USERS else sorted(random.sample(range(1, CALLERS + 1), SAMPLE))
    lua(f"{out}/R1.lua", "GetUtcNow", [envelope("GetUtcNow", [])])
    permits = [envelope("SetAccountPermits", [("sessionId", f"bench-session-{i}"), ("acceptPayments", flag()),
                                              ("acceptInvoices", flag()), ("acceptMessages", flag())]) for i in users]
    topups = [envelope("TopupPurseFromAtmCard", [("sessionId", f"bench-session-{i}"), ("purseDest", f"Z{i:012d}"),
                                                 ("cardId", i), ("amount", f"{random.randint(1, 999) / 100:.2f}")])
              for i in users]
    lua(f"{out}/R2.lua", "SetAccountPermits", permits)
    lua(f"{out}/R2k.lua", "SetAccountPermits", permits, keyed=True)
    lua(f"{out}/R3.lua", "TopupPurseFromAtmCard", topups)
    lua(f"{out}/R3k.lua", "TopupPurseFromAtmCard", topups, keyed=True)

    for case, statements in CEILING.items():
        pgbench_script(f"{out}/{case}.pgbench", statements)

    def auth(i):
        text = f"bench{i}:secret{i}:bench-session-{i}".lower()
        return hashlib.md5(text.encode()).hexdigest()
    lua(f"{out}/R4.lua", "Authenticate", [
        envelope("Authenticate", [("sessionId", f"bench-session-{i}"), ("login", f"bench{i}"), ("authHash", auth(i))])
        for i in users])


if __name__ == "__main__":
    main()
