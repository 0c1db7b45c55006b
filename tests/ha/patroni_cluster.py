"""A Patroni cluster on loopback for tests/ha: three etcd members and two PostgreSQL nodes, each
node under its own `patroni`, all as the user keeper under one directory, each with its own ports
and data directory. Built from the shipped files — packaging/etcd/etcd.default and
packaging/patroni/config.yml — with only addresses, directories and authentication put in."""
import json
import os
import shlex
import signal
import subprocess
import time
import urllib.request

import yaml  # python3-yaml, which Debian's patroni depends on

from keeper_stack import SOURCE, USER, descendants

ETCD_PORTS = ((18634, 18635), (18636, 18637), (18638, 18639))  # (client, peer) per member
NODE_PORTS, REST_PORTS = (18632, 18633), (18642, 18643)
NAMES = ("node1", "node2")
BIN = "/usr/lib/postgresql/15/bin"


def shipped_etcd_settings():
    """packaging/etcd/etcd.default as a dict (KEY="value" lines, comments dropped)."""
    settings = {}
    with open(f"{SOURCE}/packaging/etcd/etcd.default") as f:
        for line in f:
            words = shlex.split(line, comments=True)
            if words:
                key, _, value = words[0].partition("=")
                settings[key] = value
    return settings


def shipped_patroni_config():
    with open(f"{SOURCE}/packaging/patroni/config.yml") as f:
        return yaml.safe_load(f)


def settled(members, wanted=("leader", "sync_standby")):
    """A leader running and a synchronous standby streaming from it, nothing else."""
    return (sorted(m["role"] for m in members) == sorted(wanted) and
            all(m["state"] in ("running", "streaming") for m in members))


class Cluster:
    def __init__(self, root):
        self.root = root
        self.services = {}
        self.env = dict(os.environ, HOME=root, PATH=f"{BIN}:" + os.environ["PATH"])

    # --- etcd ---------------------------------------------------------------------------------
    def start_etcd(self):
        shipped = shipped_etcd_settings()
        cluster = ",".join(f"etcd{i}=http://127.0.0.1:{peer}" for i, (_, peer) in enumerate(ETCD_PORTS, 1))
        for i, (client, peer) in enumerate(ETCD_PORTS, 1):
            env = {**self.env, **shipped, **dict(
                ETCD_NAME=f"etcd{i}", ETCD_DATA_DIR=f"{self.root}/etcd{i}",
                ETCD_LISTEN_PEER_URLS=f"http://127.0.0.1:{peer}", ETCD_LISTEN_CLIENT_URLS=f"http://127.0.0.1:{client}",
                ETCD_INITIAL_ADVERTISE_PEER_URLS=f"http://127.0.0.1:{peer}",
                ETCD_ADVERTISE_CLIENT_URLS=f"http://127.0.0.1:{client}", ETCD_INITIAL_CLUSTER=cluster)}
            self.services[f"etcd{i}"] = self.spawn(f"etcd{i}", ["etcd"], env)
        self.wait(lambda: all(self.get(f"http://127.0.0.1:{c}/health").get("health") == "true" for c, _ in ETCD_PORTS),
                  60, "etcd is not healthy")

    # --- Patroni ------------------------------------------------------------------------------
    def write_node_config(self, i, manager_defaults):
        """The shipped config.yml for node i on loopback. With manager_defaults, Patroni's own
        ttl, loop_wait and retry_timeout instead of the shipped ones."""
        config = shipped_patroni_config()
        name, port, rest = NAMES[i], NODE_PORTS[i], REST_PORTS[i]
        config["name"] = name
        config["restapi"] = {"listen": f"127.0.0.1:{rest}", "connect_address": f"127.0.0.1:{rest}"}
        config["etcd3"] = {"hosts": ",".join(f"127.0.0.1:{c}" for c, _ in ETCD_PORTS)}
        dcs = config["bootstrap"]["dcs"]
        if manager_defaults:
            for key in ("ttl", "loop_wait", "retry_timeout"):
                dcs.pop(key)
        # The backup test runs the archiving (tests/ha/backup_restore_test.py); no repository here.
        parameters = dcs["postgresql"]["parameters"]
        parameters["archive_mode"] = "off"
        del parameters["archive_command"]
        config["bootstrap"]["pg_hba"] = ["local all all trust", "host replication all 127.0.0.1/32 trust",
                                         "host all all 127.0.0.1/32 trust"]
        pg = config["postgresql"]
        pg.update(listen=f"127.0.0.1:{port}", connect_address=f"127.0.0.1:{port}", data_dir=f"{self.root}/{name}",
                  pgpass=f"{self.root}/{name}.pgpass")
        pg["authentication"]["superuser"]["username"] = USER  # the user the test runs PostgreSQL as
        pg["parameters"] = dict(pg["parameters"], unix_socket_directories=f"{self.root}/sock",
                                logging_collector="on", log_directory="log")
        path = f"{self.root}/{name}.yml"
        with open(path, "w") as f:
            yaml.safe_dump(config, f)
        return path

    def start_node(self, name):
        self.services[name] = self.spawn(name, ["patroni", f"{self.root}/{name}.yml"], self.env)

    def create(self, manager_defaults=True):
        """etcd, then node1 bootstraps the cluster (and the database keeper), then node2 clones it."""
        self.start_etcd()
        for i in range(len(NAMES)):
            self.write_node_config(i, manager_defaults)
        self.start_node("node1")
        self.wait(lambda: settled(self.members(), ("leader",)), 120, "node1 did not become the leader")
        subprocess.run(["runuser", "-u", USER, "--", "psql", f"postgres://127.0.0.1:{NODE_PORTS[0]}/postgres", "-qAtc",
                        "CREATE DATABASE keeper"], check=True, capture_output=True, env=self.env)
        self.start_node("node2")
        self.wait_settled(120)

    def tune(self):
        """The shipped timings (packaging/patroni/config.yml's ttl, loop_wait, retry_timeout) on the
        running cluster, as an operator changes them: patronictl edit-config."""
        dcs = shipped_patroni_config()["bootstrap"]["dcs"]
        sets = [a for key in ("ttl", "loop_wait", "retry_timeout") for a in ("-s", f"{key}={dcs[key]}")]
        self.patronictl("edit-config", "--force", *sets)
        # Each member reads the new values on its next loop: at most the old loop_wait (10 s).
        time.sleep(12)

    def patronictl(self, *args):
        return subprocess.run(["runuser", "-u", USER, "--", "patronictl", "-c", f"{self.root}/node1.yml", *args],
                              check=True, capture_output=True, text=True, env=self.env).stdout

    def switchover(self, leader, candidate):
        return self.patronictl("switchover", "--leader", leader, "--candidate", candidate, "--force")

    # --- what the cluster says ----------------------------------------------------------------
    @staticmethod
    def get(url):
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                return json.load(r)
        except (OSError, ValueError) as e:
            body = getattr(e, "read", lambda: b"")()  # Patroni answers 503 with its state as JSON
            try:
                return json.loads(body) if body else {}
            except ValueError:
                return {}

    def members(self):
        """Patroni's view of the cluster (name, role, state, ...), asked of any node that answers."""
        for rest in REST_PORTS:
            members = self.get(f"http://127.0.0.1:{rest}/cluster").get("members")
            if members is not None:
                return members
        return []

    def states(self):
        return {m["name"]: f"{m['role']}/{m['state']}" for m in self.members()}

    def wait(self, predicate, seconds, what):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if predicate():
                return
            time.sleep(0.5)
        raise AssertionError(f"{what} after {seconds} s: {self.states()}")

    def wait_settled(self, seconds):
        self.wait(lambda: settled(self.members()), seconds, "no leader with a synchronous standby")

    def primary(self):
        """The node that takes writes now, asked of the databases."""
        uri = "postgres://127.0.0.1:%d,127.0.0.1:%d/keeper?target_session_attrs=read-write&connect_timeout=3" % NODE_PORTS
        out = subprocess.run(["runuser", "-u", USER, "--", "psql", uri, "-Atc", "SELECT inet_server_port()"],
                             capture_output=True, text=True, env=self.env).stdout.strip()
        return NAMES[NODE_PORTS.index(int(out))] if out else None

    # --- failures -----------------------------------------------------------------------------
    def postmaster(self, name):
        with open(f"{self.root}/{name}/postmaster.pid") as f:
            return int(f.readline())

    def kill_postmaster(self, name):
        """kill -9 of the node's postmaster alone; its Patroni lives on."""
        os.kill(self.postmaster(name), signal.SIGKILL)

    def kill_host(self, name):
        """The node's host dies: its Patroni and its PostgreSQL (which Patroni starts detached), at
        once, with SIGKILL."""
        doomed = descendants(self.services[name].pid) + descendants(self.postmaster(name))
        for pid in doomed:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.services[name].wait()

    def pause_postgres(self, name, paused):
        """Stops (SIGSTOP) or resumes (SIGCONT) every process of the node's PostgreSQL: a standby
        that stops answering while its connections stay up, so the primary's commits wait for it."""
        for pid in [self.postmaster(name)] + descendants(self.postmaster(name)):
            try:
                os.kill(pid, signal.SIGSTOP if paused else signal.SIGCONT)
            except ProcessLookupError:
                pass

    # --- lifetime -----------------------------------------------------------------------------
    def spawn(self, name, cmd, env):
        """A service in a session of its own, its output in <root>/<name>.log."""
        with open(f"{self.root}/{name}.log", "a") as log:
            return subprocess.Popen(["runuser", "-u", USER, "--", *cmd], env=env, stdout=log, stderr=log, cwd=self.root,
                                    start_new_session=True)

    def stop(self):
        """Patroni first (each stops its PostgreSQL), then etcd; then whatever is left, by force."""
        for group in (NAMES, [n for n in self.services if n.startswith("etcd")]):
            running = [self.services[n] for n in group if n in self.services and self.services[n].poll() is None]
            for p in running:
                os.killpg(p.pid, signal.SIGTERM)
            for p in running:
                try:
                    p.wait(30)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
        subprocess.run(["pkill", "-9", "-f", f"postgres -D {self.root}/"], check=False)
