"""A keeper-fcgi pool that a test starts itself, on loopback (hosts of their own start theirs in a
namespace instead: net_stack.start_pool). Started in a session of its own, so that the pool, its
workers and whatever runs it (runuser, setpriv, faketime) stop as one process group; waited for
until its socket exists; stopped as systemd stops it: SIGTERM to the group, SIGKILL past a
timeout."""
import os
import signal
import subprocess
import time


class Pool:
    """argv: the command that runs keeper-fcgi; socket: the file it listens on, waited for (none:
    not waited for, as for a pool handed its socket on stdin)."""

    def __init__(self, argv, env=None, log=subprocess.DEVNULL, stdin=None, socket=None, seconds=10):
        self.process = subprocess.Popen(argv, env=env, stdin=stdin, stdout=log, stderr=log, start_new_session=True)
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
        """The whole group, SIGTERM and then, past `seconds`, SIGKILL; returns once no process of it
        is left."""
        group = self.pid
        try:
            os.killpg(group, signal.SIGTERM)
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                self.process.poll()  # the leader reaped, or its zombie would count as left
                os.killpg(group, 0)
                time.sleep(0.05)
            os.killpg(group, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(10)
