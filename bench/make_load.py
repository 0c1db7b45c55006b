"""Writes the benchmark's data (SQL) and wrk scripts (Lua) into $BENCH_STATE/bench.

1000 logins bench1..bench1000, each with an authenticated session bench-session-N, a purse and a
card; the wrk scripts pick one of them at random per request, so writes spread over many rows as
real traffic does (one login's calls serialise on its row by design).
"""
import hashlib
import os
import random

STATE = os.environ["BENCH_STATE"]
USERS = 1000
NS = "http://tempuri.org/"
random.seed(7)

SEED_SQL = f"""
INSERT INTO logins (login, shared_secret) SELECT 'bench' || i, 'secret' || i FROM generate_series(1, {USERS}) i;
INSERT INTO sessions (session_id, login_id, authenticated_at)
  SELECT 'bench-session-' || substr(login, 6), id, now() FROM logins WHERE login LIKE 'bench%';
INSERT INTO purses (purse, login_id) SELECT 'Z' || lpad(substr(login, 6), 12, '0'), id FROM logins WHERE login LIKE 'bench%';
INSERT INTO cards (id, login_id) SELECT substr(login, 6)::bigint, id FROM logins WHERE login LIKE 'bench%';
ANALYZE;
"""


def envelope(op, fields):
    args = "".join(f"<{k}>{v}</{k}>" for k, v in fields)
    return ('<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">'
            f'<soap:Body><{op} xmlns="{NS}">{args}</{op}></soap:Body></soap:Envelope>')


def lua(path, op, bodies):
    with open(path, "w") as f:
        f.write(f'local headers = {{["Content-Type"] = "text/xml; charset=utf-8", ["SOAPAction"] = "\\"{NS}{op}\\""}}\n')
        f.write("local bodies = {\n")
        for b in bodies:
            f.write(f"  [==[{b}]==],\n")
        f.write("}\n")
        f.write(f'request = function() return wrk.format("POST", "{path_of(op)}", headers, bodies[math.random(#bodies)]) end\n')


def path_of(op):
    return {"GetUtcNow": "/GlobalApi.asmx", "Authenticate": "/SimpleAuthApi.asmx"}.get(op, "/AccountApi.asmx")


def flag():
    return random.choice(["true", "false"])


def main():
    out = os.path.join(STATE, "bench")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "seed.sql"), "w") as f:
        f.write(SEED_SQL)
    users = range(1, USERS + 1)
    lua(f"{out}/R1.lua", "GetUtcNow", [envelope("GetUtcNow", [])])
    lua(f"{out}/R2.lua", "SetAccountPermits", [
        envelope("SetAccountPermits", [("sessionId", f"bench-session-{i}"), ("acceptPayments", flag()),
                                       ("acceptInvoices", flag()), ("acceptMessages", flag())]) for i in users])
    lua(f"{out}/R3.lua", "TopupPurseFromAtmCard", [
        envelope("TopupPurseFromAtmCard", [("sessionId", f"bench-session-{i}"), ("purseDest", f"Z{i:012d}"),
                                           ("cardId", i), ("amount", f"{random.randint(1, 999) / 100:.2f}")])
        for i in users])

    def auth(i):
        text = f"bench{i}:secret{i}:bench-session-{i}".lower()
        return hashlib.md5(text.encode()).hexdigest()
    lua(f"{out}/R4.lua", "Authenticate", [
        envelope("Authenticate", [("sessionId", f"bench-session-{i}"), ("login", f"bench{i}"), ("authHash", auth(i))])
        for i in users])


if __name__ == "__main__":
    main()
