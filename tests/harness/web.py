"""One HTTP call of a test, on a connection of its own that is closed after the answer."""
import http.client


def call(port, path, method=None, headers=None, body=None, host="127.0.0.1", context=None, source=None,
         timeout=15):
    """(status, headers, body as bytes) of one request to host:port: over TLS with the ssl context
    given, from the address source if given; POST with a body and GET without, unless method."""
    kw = {"timeout": timeout, "source_address": (source, 0) if source else None}
    conn = (http.client.HTTPSConnection(host, port, context=context, **kw) if context
            else http.client.HTTPConnection(host, port, **kw))
    try:
        conn.request(method or ("POST" if body is not None else "GET"), path, body=body, headers=headers or {})
        r = conn.getresponse()
        return r.status, r.headers, r.read()
    finally:
        conn.close()
