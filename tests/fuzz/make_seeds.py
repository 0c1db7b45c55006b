"""Writes the seed corpora of tests/fuzz/corpus/ from the golden cases (run when they change;
the seeds are committed: `PYTHONPATH=tests python3 tests/fuzz/make_seeds.py`). Each target gets
inputs in its own format (see each fuzz_*.cpp)."""
import hashlib
import os
import urllib.parse

from harness import fastcgi

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "golden")
# The order of fuzz_request.cpp's content_types (index 3: none).
CONTENT_TYPES = ["text/xml; charset=utf-8", "application/soap+xml; charset=utf-8", "application/x-www-form-urlencoded",
                 None, None, None, None, None, "application/json; charset=utf-8"]


def write(target, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()[:16]), "wb") as f:
        f.write(data)


# A request as nginx sends it to the workers (fuzz_fastcgi.cpp), keeping the connection; the
# first byte cuts the feed.
def fastcgi_request(method, path, query, ctype, action, body):
    return fastcgi.request({"REQUEST_METHOD": method, "DOCUMENT_URI": path, "QUERY_STRING": query,
                            "CONTENT_TYPE": ctype, "CONTENT_LENGTH": str(len(body)), "HTTP_SOAPACTION": action},
                           body, keep=True)


def request_of(case):
    head, _, _ = case.partition("\n=== response")
    lines = head.split("\n")[1:]  # after the comment
    method, target = lines[0].split(" ", 1)
    headers, i = {}, 1
    while i < len(lines) and lines[i]:
        k, _, v = lines[i].partition(": ")
        headers[k.lower()] = v
        i += 1
    body = "\n".join(lines[i + 1:])
    path, _, query = target.partition("?")
    return method, path, query, headers, body


for name in sorted(os.listdir(GOLDEN)):
    if not name.endswith(".case"):
        continue
    with open(os.path.join(GOLDEN, name), encoding="utf-8") as f:
        method, path, query, headers, body = request_of(f.read())
    ctype = headers.get("content-type", "")
    choice = (0x80 if method == "GET" else 0) | next((i for i, t in enumerate(CONTENT_TYPES) if t and ctype.startswith(t.split(";")[0])), 3)
    if ctype.startswith("application/soap+xml") and "action=" in ctype:
        choice = (choice & 0x80) | 4
    action = headers.get("soapaction", "").strip('"')
    write("fuzz_request", bytes([choice]) + f"{path}\n{query}\n{action}\n{body}".encode())
    if body.startswith("<?xml"):
        write("fuzz_soap_reader", bytes([1 if "2003/05" in body else 0]) + body.encode())
    form = query or (body if ctype.startswith("application/x-www-form") else "")
    if form:
        write("fuzz_form_decoders", bytes([len(name) % 13]) + form.encode())
        for value in urllib.parse.parse_qs(form).values():
            write("fuzz_form_decoders", bytes([len(name) % 13]) + value[0].encode())
    write("fuzz_media_path", ctype.encode() if ctype else path.encode())
    write("fuzz_media_path", path.encode())
    write("fuzz_fastcgi", bytes([len(name)]) + fastcgi_request(method, path, query, ctype, action, body.encode()))

# /call-outcome (core/pipeline/call_outcome.cpp), by GET and by form POST: a request id of keeper's
# shape dated 2026, one dated far ahead (a client fault), past what utc_time holds (2262) and the last
# 13-digit time (2286), and shapes that are not one.
for request_id in ["17966200000000123456789abcdef012", "20000000000000123456789abcdef012",
                   "93000000000000123456789abcdef012", "99999999999990123456789abcdef012",
                   "1796620000000", "1796620000000ABCDEF0123456789ABC", ""]:
    query = f"sessionId=abc&requestId={request_id}"
    write("fuzz_request", bytes([0x80 | 3]) + f"/call-outcome\n{query}\n\n".encode())
    write("fuzz_request", bytes([2]) + f"/call-outcome\n\n\n{query}".encode())

# FastCGI's management records: the variables a web server may ask, and a type nobody knows.
write("fuzz_fastcgi", bytes([63]) + fastcgi.record(9, fastcgi.pairs({"FCGI_MPXS_CONNS": "", "FCGI_MAX_CONNS": ""}), 0)
      + fastcgi.record(42, b"", 0))
