"""A FastCGI client of the pool's sockets, as nginx speaks to them: records, name-value pairs, a
request, and its answer's stdout (the tests that are a peer of the pool without nginx, and the
fuzz targets' seeds)."""
import socket
import struct


def record(kind, content=b"", request=1):
    return struct.pack(">BBHHBx", 1, kind, request, len(content), 0) + content


def pairs(params):
    def length(n):
        return bytes([n]) if n < 128 else struct.pack(">I", n | 0x80000000)
    return b"".join(length(len(n)) + length(len(v)) + n + v for n, v in ((k.encode(), v.encode()) for k, v in params.items()))


def request(params, body=b"", keep=False):
    """A responder's request: begin (keep: FCGI_KEEP_CONN), the parameters, the body, each stream
    ended by an empty record."""
    stdin = [record(5, body[i:i + 65535]) for i in range(0, len(body), 65535)]
    return (record(1, struct.pack(">HB5x", 1, int(keep))) + record(4, pairs(params)) + record(4)
            + b"".join(stdin) + record(5))


def read_answer(conn):
    """One answer's records from a connection, up to its FCGI_END_REQUEST; its stdout as text.
    ConnectionError (an OSError) when the connection closes before."""
    data, out = b"", b""
    while True:
        while len(data) < 8 or len(data) < 8 + struct.unpack(">H", data[4:6])[0] + data[6]:
            chunk = conn.recv(65536)
            if not chunk:
                raise ConnectionError(f"the pool closed the connection before its answer ended; read so far: {out!r}")
            data += chunk
        _, kind, _, length, padding = struct.unpack(">BBHHB", data[:7])
        if kind == 6:
            out += data[8:8 + length]
        data = data[8 + length + padding:]
        if kind == 3:
            return out.decode()


def get(socket_path, path, query, request_id, **more):
    """One GET through a FastCGI socket on a connection of its own (more: further parameters); the
    response's head and body as text."""
    params = {"REQUEST_METHOD": "GET", "DOCUMENT_URI": path, "QUERY_STRING": query, "REQUEST_ID": request_id,
              "REMOTE_ADDR": "127.0.0.1", "SERVER_PROTOCOL": "HTTP/1.1", "CONTENT_LENGTH": "0", **more}
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(15)
        s.connect(socket_path)
        s.sendall(request(params))
        return read_answer(s)
