#!/usr/bin/python3
"""nginx passes the workers only the FastCGI parameters they read: every fastcgi_param of the
shipped nginx files is a name fcgi/fcgi_exchange.cpp looks up. A parameter nobody reads is still
built by nginx and parsed, allocated and compared by a worker on every request."""
import glob
import os
import re
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def names_the_workers_read():
    with open(os.path.join(ROOT, "fcgi", "fcgi_exchange.cpp")) as f:
        source = f.read()
    found = re.search(r"names\{(.*?)\};", source, re.S)
    if not found:
        raise AssertionError("fcgi/fcgi_exchange.cpp: no names{...} of the parameters it reads")
    return set(re.findall(r'"([A-Z_]+)"', found.group(1)))


def params_nginx_passes():
    passed = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "nginx", "*.conf"))):
        with open(path) as f:
            for line in f:
                m = re.match(r"\s*fastcgi_param\s+([A-Z_]+)\s", line)
                if m:
                    passed.setdefault(m.group(1), os.path.basename(path))
    return passed


class FastcgiParams(unittest.TestCase):
    def test_the_reader_and_the_files_are_found(self):
        self.assertIn("REQUEST_ID", names_the_workers_read())
        self.assertIn("REQUEST_ID", params_nginx_passes())

    def test_nginx_passes_nothing_the_workers_do_not_read(self):
        read = names_the_workers_read()
        unread = {name: conf for name, conf in params_nginx_passes().items() if name not in read}
        self.assertEqual(unread, {}, "fastcgi_param(s) no worker reads: drop them, or read them in fcgi_exchange.cpp")


if __name__ == "__main__":
    unittest.main()
