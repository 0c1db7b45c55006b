"""A test's own nginx on loopback: its files written into one directory by nginx_conf.conf (the
one writer of a test nginx's files, scripts/lib), started in the background, waited for on its
port, and stopped. Tests on hosts of their own start theirs in a namespace instead
(net_stack.start_nginx)."""
import os
import socket
import subprocess
import time

import nginx_conf


def start(directory, http, port, error_log=None, **conf):
    """nginx with prefix and files in directory and the http block's own text http, once it accepts
    on port; its error log directory's own unless error_log. Returns its pid file."""
    os.makedirs(directory, exist_ok=True)
    error_log = error_log or f"{directory}/error.log"
    nginx_conf.conf(f"{directory}/nginx.conf", directory, error_log, http, **conf)
    subprocess.run(["nginx", "-p", directory, "-c", f"{directory}/nginx.conf", "-e", error_log], check=True)
    for _ in range(50):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    return f"{directory}/nginx.pid"


def stop(directory):
    """The nginx start() began in directory, stopped; returns once its pid file is gone."""
    subprocess.run(["nginx", "-p", directory, "-c", f"{directory}/nginx.conf", "-s", "stop"],
                   stderr=subprocess.DEVNULL)
    for _ in range(50):
        if not os.path.exists(f"{directory}/nginx.pid"):
            return
        time.sleep(0.1)
