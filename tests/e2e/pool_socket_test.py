"""A peer of the pool's sockets that is not nginx (docs/operations.md, "Who may reach the pool's
sockets"): whatever REQUEST_ID it passes, a worker takes only an id of keeper's own form (13
digits of time, 19 hex digits, nginx/keeper-request-id.conf) and gives any other call an id of
its own. An id names the call's claim, whose holder a retried call's settling ends, and its time
is the deadline the database keeps (db/functions/keeper_claim.sql): a chosen id could skip that
check, or, on the retry socket, name another call.

Speaks FastCGI to the running stack's sockets itself, one request per connection."""
import os
import re
import socket
import struct
import subprocess
import time
import unittest
import uuid

STATE = os.environ["KEEPER_TEST_STATE"]
DATABASE_URL = os.environ["KEEPER_TEST_DATABASE_URL"]
KEEPER_ID = re.compile(r"^\d{13}[0-9a-f]{19}$")


def record(kind, content=b"", request=1):
    return struct.pack(">BBHHBx", 1, kind, request, len(content), 0) + content


def pairs(params):
    out = b""
    for name, value in params.items():
        n, v = name.encode(), value.encode()
        out += bytes([len(n)]) + (bytes([len(v)]) if len(v) < 128 else struct.pack(">I", len(v) | 0x80000000)) + n + v
    return out


def fastcgi_get(socket_path, path, query, request_id):
    """One GET through a FastCGI socket; returns the response's head and body as text."""
    params = {"REQUEST_METHOD": "GET", "DOCUMENT_URI": path, "QUERY_STRING": query, "REQUEST_ID": request_id,
              "REMOTE_ADDR": "127.0.0.1", "SERVER_PROTOCOL": "HTTP/1.1", "CONTENT_LENGTH": "0"}
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(15)
        s.connect(socket_path)
        s.sendall(record(1, struct.pack(">HB5x", 1, 0)) + record(4, pairs(params)) + record(4) + record(5))
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    out = b""
    while len(data) >= 8:
        _, kind, _, length, padding = struct.unpack(">BBHHB", data[:7])
        if kind == 6:
            out += data[8:8 + length]
        data = data[8 + length + padding:]
    return out.decode()


def sql(query):
    return subprocess.run(["psql", DATABASE_URL, "-XAtqc", query], check=True, capture_output=True, text=True).stdout.strip()


class PeerOfThePoolsSockets(unittest.TestCase):
    def test_a_request_id_not_of_keepers_form_is_replaced_on_either_socket(self):
        for socket_name in ("keeper.sock", "keeper-retry.sock"):
            with self.subTest(socket_name):
                login = f"peer-{uuid.uuid4().hex[:8]}"
                chosen = f"chosen-{uuid.uuid4().hex[:8]}"
                answer = fastcgi_get(os.path.join(STATE, "run", socket_name), "/SimpleAuthApi.asmx/Authenticate",
                                     f"sessionId={uuid.uuid4()}&login={login}&authHash={'f' * 32}", chosen)
                given = re.search(r"X-Request-Id: (\S+)", answer).group(1)
                self.assertRegex(given, KEEPER_ID)
                self.assertEqual(sql(f"SELECT request_id FROM audit_calls WHERE login = '{login}'"), given)
                self.assertEqual(sql(f"SELECT count(*) FROM audit_calls WHERE request_id = '{chosen}'"), "0")

    def test_an_id_of_keepers_form_is_kept(self):
        login = f"peer-{uuid.uuid4().hex[:8]}"
        own = f"{int(time.time() * 1000):013d}{uuid.uuid4().hex[:19]}"
        answer = fastcgi_get(os.path.join(STATE, "run", "keeper.sock"), "/SimpleAuthApi.asmx/Authenticate",
                             f"sessionId={uuid.uuid4()}&login={login}&authHash={'f' * 32}", own)
        self.assertIn(f"X-Request-Id: {own}", answer)
        self.assertEqual(sql(f"SELECT request_id FROM audit_calls WHERE login = '{login}'"), own)


if __name__ == "__main__":
    unittest.main(verbosity=2)
