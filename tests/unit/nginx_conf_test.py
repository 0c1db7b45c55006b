#!/usr/bin/python3
"""scripts/lib/nginx_conf.py, the one writer of a test nginx's files: a replacement whose text the
shipped file lacks stops the stack, and what it writes is a configuration nginx accepts with the
shipped files."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
import nginx_conf  # scripts/lib, on PYTHONPATH


class NginxConf(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="keeper-nginx-conf-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_a_replacement_the_shipped_file_lacks_is_an_error(self):
        with self.assertRaisesRegex(ValueError, "not in nginx/keeper-upstream.conf"):
            nginx_conf.shipped("keeper-upstream.conf", f"{self.dir}/u.conf", [("unix:/run/kept/", "unix:/tmp/")])
        result = subprocess.run([sys.executable, f"{ROOT}/scripts/lib/nginx_conf.py", "shipped", "keeper-tls.conf",
                                 f"{self.dir}/t.conf", "/etc/ssl/no-such.pem", "/tmp/x.pem"], capture_output=True, text=True)
        self.assertEqual(result.returncode, 1)
        self.assertIn("the shipped file changed", result.stderr)

    def test_each_replacement_is_made_everywhere(self):
        out = nginx_conf.shipped("keeper-upstream.conf", f"{self.dir}/u.conf", [("unix:/run/keeper/", f"unix:{self.dir}/")])
        with open(out) as f:
            text = f.read()
        self.assertNotIn("/run/keeper/", text)
        self.assertIn(f"unix:{self.dir}/keeper-retry.sock", text)

    def test_nginx_accepts_a_stack_written_by_it(self):
        if not shutil.which("nginx"):
            self.skipTest("no nginx")  # scripts/test installs it; run alone, the text checks above still run
        upstream = nginx_conf.shipped("keeper-upstream.conf", f"{self.dir}/u.conf", [("unix:/run/keeper/", f"unix:{self.dir}/")])
        http = f"""    include {upstream};
    server {{ listen 127.0.0.1:18099; include {ROOT}/nginx/keeper-errors.conf; include {ROOT}/nginx/keeper-locations.conf; }}
"""
        conf = nginx_conf.conf(f"{self.dir}/nginx.conf", self.dir, f"{self.dir}/error.log", http, workers=1,
                               connections=64, access_log=f"{self.dir}/access.log keeper")
        checked = subprocess.run(["nginx", "-t", "-q", "-p", self.dir, "-c", conf, "-e", f"{self.dir}/error.log"],
                                 capture_output=True, text=True)
        self.assertEqual(checked.returncode, 0, checked.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
