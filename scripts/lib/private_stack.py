#!/usr/bin/python3
"""The one way keeper's processes start and stop on a machine outside systemd: a private
PostgreSQL, the keeper-fcgi pool and nginx, each under a directory of its own. scripts/lib/stack.sh
(scripts/serve, scripts/test, scripts/bench) runs it as a command; the Python tests import it
(`import private_stack`, scripts/lib being on their PYTHONPATH). A test network's hosts run the same
commands in their namespaces (tests/harness/net_stack.py); booted hosts run keeper as it ships,
under systemd (tests/harness/containers.sh).

PostgreSQL and the pool run as the unprivileged user keeper (PostgreSQL refuses root); nginx's
master runs as the caller, its workers as its configuration says.

    private_stack.py start-postgres DATA LOG SOCKETS [SETTING...]   (and the database "keeper")
    private_stack.py stop-postgres DATA
    private_stack.py start-pool PIDFILE LOG SOCKET COMMAND...       (COMMAND run as keeper)
    private_stack.py stop-pool PIDFILE
    private_stack.py start-nginx DIR ERROR_LOG                       (DIR/nginx.conf: nginx_conf.py)
    private_stack.py stop-nginx DIR
"""
import glob
import os
import pwd
import shlex
import signal
import socket
import subprocess
import sys
import time

import nginx_conf

USER = "keeper"


def as_user(cmd, user=USER):
    """cmd run as user, with user's HOME (libpq looks there for client certificates): setpriv and
    env exec it, so the pid is cmd's own."""
    return ["setpriv", f"--reuid={user}", f"--regid={user}", "--init-groups", "--", "env",
            f"HOME={pwd.getpwnam(user).pw_dir}", *cmd]


def run(cmd, **kw):
    """cmd's result; a failure says what the command said, not only its exit status."""
    try:
        return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)
    except subprocess.CalledProcessError as e:
        raise AssertionError(f"{shlex.join(map(str, cmd))} exited {e.returncode}:\n{e.stdout}{e.stderr}") from None


def owned(*directories):
    """Each directory made if missing and given to USER."""
    keeper = pwd.getpwnam(USER)
    for d in directories:
        os.makedirs(d, exist_ok=True)
        os.chown(d, keeper.pw_uid, keeper.pw_gid)


# --- PostgreSQL ----------------------------------------------------------------------------------

def pg_bin():
    return sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]))[-1]


def init_postgres(data):
    """A cluster in data, made once, owned by USER and trusting local connections: a private one."""
    if os.path.exists(f"{data}/PG_VERSION"):
        return
    owned(data)
    os.chmod(data, 0o700)
    run(as_user([f"{pg_bin()}/initdb", "-D", data, "-U", USER, "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8"]),
        cwd="/")


def start_postgres(data, log, settings=()):
    """The cluster in data (init_postgres) started by pg_ctl, with server settings ("-c name=value"
    words), once it accepts connections."""
    init_postgres(data)
    owned(os.path.dirname(log))
    run(as_user([f"{pg_bin()}/pg_ctl", "-D", data, "-l", log, "-w", "-s", "-o", " ".join(settings), "start"]), cwd="/")


def stop_postgres(data, mode="fast"):
    if os.path.exists(f"{data}/postmaster.pid"):
        subprocess.run(as_user([f"{pg_bin()}/pg_ctl", "-D", data, "-m", mode, "-w", "-s", "stop"]), cwd="/",
                       capture_output=True)


def ensure_database(target, name="keeper"):
    """The database name on the server psql reaches as target, made if missing."""
    exists = run(as_user(["psql", "-d", target, "-qtAc", f"SELECT 1 FROM pg_database WHERE datname = '{name}'"]),
                 cwd="/").stdout
    if "1" not in exists:
        run(as_user(["psql", "-d", target, "-qc", f'CREATE DATABASE "{name}"']), cwd="/")


# --- the pool ------------------------------------------------------------------------------------

def pool_command(binary, run_dir, workers=None, retry=True):
    """keeper-fcgi's arguments for sockets in run_dir: keeper.sock and, with retry, the retry
    socket nginx sends a call again to (docs/design.md, "In-doubt calls")."""
    cmd = [binary, "--listen", f"{run_dir}/keeper.sock"]
    if retry:
        cmd += ["--retry-listen", f"{run_dir}/keeper-retry.sock"]
    return cmd + (["--workers", str(workers)] if workers else [])


def stop_group(pid, seconds=20, reap=lambda: None):
    """The process group pid leads, stopped as systemd stops a unit: SIGTERM, then SIGKILL past
    `seconds`; returns once no process of it is left. reap: the leader's reaping, when the caller
    is its parent (a zombie would count as left)."""
    try:
        for sig, wait in ((signal.SIGTERM, seconds), (signal.SIGKILL, 10)):
            os.killpg(pid, sig)
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline:
                reap()
                os.killpg(pid, 0)
                time.sleep(0.05)
    except ProcessLookupError:
        pass


class Pool:
    """A keeper-fcgi pool (argv: the command that runs it) in a session of its own, so that the
    pool, its workers and whatever runs it (runuser, setpriv, faketime) stop as one process group.
    socket: the file it listens on, waited for (none: not waited for, as for a pool handed its
    socket on stdin)."""

    def __init__(self, argv, env=None, log=subprocess.DEVNULL, stdin=None, socket=None, seconds=10):
        self.process = subprocess.Popen(argv, env=env, stdin=stdin, stdout=log, stderr=log, start_new_session=True,
                                        cwd="/")
        self.pid = self.process.pid
        deadline = time.monotonic() + seconds
        while socket and not os.path.exists(socket):
            if time.monotonic() > deadline or not self.running():
                self.stop()
                raise AssertionError(f"keeper-fcgi made no {socket} in {seconds} s")
            time.sleep(0.05)

    def running(self):
        return self.process.poll() is None

    def stop(self, seconds=20):
        stop_group(self.pid, seconds, self.process.poll)
        self.process.wait(10)


# --- nginx ---------------------------------------------------------------------------------------

def launch_nginx(directory, error_log):
    """nginx with directory/nginx.conf (nginx_conf.conf), checked first so that a refusal says why."""
    conf = f"{directory}/nginx.conf"
    run(["nginx", "-t", "-q", "-p", directory, "-c", conf, "-e", error_log])
    # Not captured: the master, once a daemon, would hold the pipe open.
    subprocess.run(["nginx", "-p", directory, "-c", conf, "-e", error_log], check=True, stdout=subprocess.DEVNULL)


def wait_port(address, port, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection((address, port), 1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"{what} does not listen on {address}:{port} after {seconds} s")


def start_nginx(directory, http, port, error_log=None, **conf):
    """nginx with prefix and files in directory and the http block's own text http, once it accepts
    on 127.0.0.1:port; its error log directory's own unless error_log. Returns its pid file."""
    os.makedirs(directory, exist_ok=True)
    error_log = error_log or f"{directory}/error.log"
    nginx_conf.conf(f"{directory}/nginx.conf", directory, error_log, http, **conf)
    if conf.get("user"):
        owned(f"{directory}/tmp")
    launch_nginx(directory, error_log)
    wait_port("127.0.0.1", port, 5, "nginx")
    return f"{directory}/nginx.pid"


def stop_nginx(directory, sig=signal.SIGTERM):
    """The nginx whose pid file is in directory, stopped by that pid (not `nginx -s`, which parses
    the configuration first and refuses a running nginx whose included files changed): SIGTERM at
    once, SIGQUIT after the calls in hand. Returns once it is gone (at most 10 s)."""
    try:
        with open(f"{directory}/nginx.pid") as f:
            pid = int(f.read())
        os.kill(pid, sig)
        for _ in range(100):
            os.kill(pid, 0)
            time.sleep(0.1)
    except (OSError, ValueError):
        pass


# --- as a command (scripts/lib/stack.sh) -----------------------------------------------------------

def start_pool_command(pid_file, log, sock, *cmd):
    with open(log, "a") as out:
        try:
            pool = Pool(as_user(list(cmd)), log=out, socket=sock)
        except AssertionError as e:
            with open(log) as f:
                sys.stderr.write("".join(f.readlines()[-5:]))
            raise SystemExit(f"error: {e}")
    with open(pid_file, "w") as f:
        f.write(f"{pool.pid}\n")


def stop_pool_command(pid_file):
    try:
        with open(pid_file) as f:
            stop_group(int(f.read()))
    except FileNotFoundError:
        return
    run_dir = os.path.dirname(pid_file)
    for name in (pid_file, f"{run_dir}/keeper.sock", f"{run_dir}/keeper-retry.sock"):
        if os.path.exists(name):
            os.remove(name)


def start_postgres_command(data, log, sockets, *settings):
    owned(sockets)
    start_postgres(data, log, ("-c listen_addresses=''", f"-c unix_socket_directories='{sockets}'", *settings))
    ensure_database(f"host={sockets} dbname=postgres")


COMMANDS = {
    "start-postgres": (start_postgres_command, 3),
    "stop-postgres": (stop_postgres, 1),
    "start-pool": (start_pool_command, 4),
    "stop-pool": (stop_pool_command, 1),
    "start-nginx": (launch_nginx, 2),
    "stop-nginx": (lambda directory: stop_nginx(directory, signal.SIGQUIT), 1),
}


def main(argv):
    command, least = COMMANDS.get(argv[0] if argv else "", (None, 0))
    if not command or len(argv) - 1 < least:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        command(*argv[1:])
    except AssertionError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
