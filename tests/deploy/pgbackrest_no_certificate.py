#!/usr/bin/env python3
"""A peer without a certificate at pgBackRest's TLS server: it is told the server is alive, and
nothing more.

    pgbackrest_no_certificate.py ADDRESS CA_FILE

pgBackRest's server (2.45, `pgbackrest server`) asks for a client certificate without requiring
one, so the handshake completes; a session with no certificate gets the server's greeting and a
data-end message (what its own `--pg1-host` ping waits for), and the server closes the connection
without reading what the peer writes: no command is served, whatever is sent. Passes when the
server's whole answer, unprompted, is that and the connection then ends; prints what it got
otherwise."""
import socket
import ssl
import sys

GREETING = b'{"name":"pgBackRest","service":"remote","version":'
DATA_END = b"\x84\x00"  # protocolMessageTypeDataEnd, packed: the "alive" answer
WAIT = 5.0


def answer(address: str, ca_file: str) -> bytes:
    """Everything the server sends to a peer that shows no certificate and writes nothing."""
    context = ssl.create_default_context(cafile=ca_file)
    context.check_hostname = False  # the address, not a name: the certificate is not the question
    with socket.create_connection((address, 8432), timeout=WAIT) as raw:
        with context.wrap_socket(raw) as tls:
            got = b""
            while chunk := tls.recv(4096):
                got += chunk
            return got


def main() -> int:
    address, ca_file = sys.argv[1], sys.argv[2]
    try:
        got = answer(address, ca_file)
    except (OSError, ssl.SSLError) as error:  # a timeout included: the server kept the line open
        print(f"{address}:8432: {type(error).__name__}: {error}")
        return 1
    greeting, _, rest = got.partition(b"\n")
    if greeting.startswith(GREETING) and rest == DATA_END:
        return 0
    print(f"{address}:8432 sent {got!r}: not the greeting and a data end alone")
    return 1


if __name__ == "__main__":
    sys.exit(main())
