"""A peer of the pool's sockets that is not nginx (docs/operations.md, "Who may reach the pool's
sockets"): whatever REQUEST_ID it passes, a worker takes only an id of keeper's own form (13
digits of time, 19 hex digits, nginx/keeper-request-id.conf) and gives any other call an id of
its own. An id names the call's claim, whose holder a retried call's settling ends, and its time
is the deadline the database keeps (db/functions/keeper_claim.sql): a chosen id could skip that
check, or, on the retry socket, name another call. And a pool of its own that waits for a
configuration it refuses: what it answers a call sent again to its retry socket.

Speaks FastCGI to the sockets itself, one request per connection."""
import os
import re
import shutil
import socket
import tempfile
import time
import unittest
import uuid

import private_stack
from harness.fastcgi import get as fastcgi_get, read_answer, record, request
from harness.test_stack import STATE, sql

KEEPER_ID = re.compile(r"^\d{13}[0-9a-f]{19}$")


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


class AKeptConnection(unittest.TestCase):
    """A connection nginx keeps is registered once, edge-triggered (docs/design.md, "The process
    model"): a request that arrives in parts, the rest while its reader is busy, leaves no edge
    unseen, and the connection's next requests are each answered."""

    def test_a_request_in_two_parts_then_more_on_the_same_connection(self):
        whole = request({"REQUEST_METHOD": "GET", "DOCUMENT_URI": "/GlobalApi.asmx/GetUtcNow", "QUERY_STRING": "",
                         "REMOTE_ADDR": "127.0.0.1", "CONTENT_LENGTH": "0"}, keep=True)
        with socket.socket(socket.AF_UNIX) as conn:
            conn.settimeout(15)
            conn.connect(os.path.join(STATE, "run", "keeper.sock"))
            ends = record(4) + record(5)  # the empty parameters and body records that end the request
            conn.sendall(whole[:-len(ends)])
            time.sleep(0.3)  # the reader waits in read() for the rest: busy when it comes
            conn.sendall(ends)
            self.assertIn("Status: 200", read_answer(conn))
            for _ in range(300):  # each sent as its answer is read: some while its reader settles
                conn.sendall(whole)
                self.assertIn("Status: 200", read_answer(conn))


class APoolThatWaits(unittest.TestCase):
    """A pool waiting for a configuration it refuses runs nothing (pool/answer_while_waiting.hpp). A call
    nginx sends again to its retry socket is "outcome unknown" when nginx first passed it on before
    the pool began (an earlier pool may have run it), and "not applied" when after: no worker of
    this pool, and none of the pool before it, can have seen it."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="keeper-waiting-pool-")
        os.chmod(cls.dir, 0o755)
        with open(f"{cls.dir}/keeper.conf", "w") as f:
            f.write("workers = many\n")
        cls.started = time.time()
        cls.pool = private_stack.Pool([os.environ["KEEPER_TEST_FCGI"], "--config", f"{cls.dir}/keeper.conf", "--listen",
                                      f"{cls.dir}/keeper.sock", "--retry-listen", f"{cls.dir}/keeper-retry.sock"],
                                     socket=f"{cls.dir}/keeper-retry.sock")
        cls.began = time.time()

    @classmethod
    def tearDownClass(cls):
        cls.pool.stop(10)
        shutil.rmtree(cls.dir, ignore_errors=True)

    def resend(self, first_passed_at):
        request_id = f"{int(first_passed_at * 1000):013d}{uuid.uuid4().hex[:19]}"
        return fastcgi_get(f"{self.dir}/keeper-retry.sock", "/AccountApi.asmx/SetAccountPermits",
                           "sessionId=s&acceptPayments=true&acceptInvoices=true&acceptMessages=true", request_id)

    def test_a_resent_call_first_passed_on_before_it_began_is_outcome_unknown(self):
        answer = self.resend(self.began - 60)
        self.assertIn("Status: 500", answer)
        self.assertIn("outcome of the call is unknown", answer)

    def test_a_resent_call_first_passed_on_just_before_it_began_is_outcome_unknown(self):
        # The pool before may still be committing it: no margin for the clocks may make it "not applied".
        answer = self.resend(self.started - 0.5)
        self.assertIn("Status: 500", answer)
        self.assertIn("outcome of the call is unknown", answer)

    def test_a_resent_call_first_passed_on_after_it_began_is_not_applied(self):
        time.sleep(max(0.0, self.started + 1.5 - time.time()))  # past the second the pool allows for the clocks
        answer = self.resend(time.time())
        self.assertIn("Status: 503", answer)
        self.assertIn("not applied", answer)
        self.assertIn("Retry-After", answer)


if __name__ == "__main__":
    unittest.main(verbosity=2)
