"""A Patroni cluster for tests/ha on a test network of hosts (tests/harness/hostnet.py): three database
hosts db1, db2, db3, each running an etcd member, db1 and db2 each a PostgreSQL node under its own
`patroni`; everything on the standard ports of its host's own address, as the user keeper under
one directory. Built from the shipped files — packaging/etcd/etcd.default and
packaging/patroni/config.yml — with only addresses, directories and authentication put in."""
import json
import os
import shlex
import shutil
import signal
import ssl
import subprocess
import time
import urllib.request

import yaml  # python3-yaml, which Debian's patroni depends on

from harness import wait
from harness.keeper_stack import SOURCE, USER, descendants

ETCD_CLIENT, ETCD_PEER, PG_PORT, REST_PORT = 2379, 2380, 5432, 8008
NAMES = ("node1", "node2")
# The test network's hosts: the database hosts (db3 runs etcd alone), the worker hosts, the edge.
HOSTS = {"edge": 10, "w1": 11, "w2": 12, "db1": 31, "db2": 32, "db3": 33}
NODE_HOSTS = {"node1": "db1", "node2": "db2"}
ETCD_HOSTS = ("db1", "db2", "db3")
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


PASSWORD = "keeper-ha-test-password"  # every role's and the REST API's, in the test alone


def shipped_paths(value, host, root):
    """value (from a shipped file) with the shipped TLS paths as the test's, for host."""
    for shipped in ("/etc/patroni/tls/", "/etc/etcd/tls/"):
        if isinstance(value, str) and value.startswith(shipped):
            name = value[len(shipped):]
            return f"{root}/tls/{host}.{name.split('.')[1]}" if name.startswith("host.") else f"{root}/tls/{name}"
    if isinstance(value, dict):
        return {k: shipped_paths(v, host, root) for k, v in value.items()}
    return value


class Cluster:
    def __init__(self, root, net):
        self.root, self.net = root, net
        self.services = {}
        self.env = dict(os.environ, HOME=root, PATH=f"{BIN}:" + os.environ["PATH"],
                        PATRONI_SUPERUSER_PASSWORD=PASSWORD, PATRONI_REPLICATION_PASSWORD=PASSWORD,
                        PATRONI_REWIND_PASSWORD=PASSWORD, PATRONI_RESTAPI_USERNAME="patroni",
                        PATRONI_RESTAPI_PASSWORD=PASSWORD)
        self.tls = f"{root}/tls"

    # --- the tier's certificate authority, as docs/scaling.md has an operator make it -----------
    def make_certificates(self):
        """scripts/make-certs: the authority, each database host's certificate (its address, and
        127.0.0.1 for Patroni's own connection), and one for the test as a client."""
        tool = f"{SOURCE}/scripts/make-certs"
        subprocess.run([tool, self.tls, "ca"], check=True, capture_output=True)
        for host in ETCD_HOSTS:
            subprocess.run([tool, self.tls, host, self.net.address(host), "127.0.0.1"], check=True, capture_output=True)
        subprocess.run([tool, self.tls, "client", self.net.address("client")], check=True, capture_output=True)
        for name in os.listdir(self.tls):
            shutil.chown(f"{self.tls}/{name}", USER, USER)
        shutil.chown(self.tls, USER, USER)
        self.context = ssl.create_default_context(cafile=f"{self.tls}/ca.crt")
        self.context.load_cert_chain(f"{self.tls}/client.crt", f"{self.tls}/client.key")

    # --- etcd ---------------------------------------------------------------------------------
    def etcd_url(self, host, port):
        return f"https://{self.net.address(host)}:{port}"

    def start_etcd(self):
        for i in range(1, len(ETCD_HOSTS) + 1):
            self.start_etcd_member(i)
        self.wait(lambda: all(self.get(f"{self.etcd_url(h, ETCD_CLIENT)}/health").get("health") == "true"
                              for h in ETCD_HOSTS), 60, "etcd is not healthy")

    def start_etcd_member(self, i):
        """The shipped etcd.default (TLS both ways, listening on every address of the host) with
        the member's name, addresses, data directory and certificate put in."""
        host = ETCD_HOSTS[i - 1]
        shipped = {k: shipped_paths(v, host, self.root) for k, v in shipped_etcd_settings().items()}
        env = {**self.env, **shipped, **dict(
            ETCD_NAME=f"etcd{i}", ETCD_DATA_DIR=f"{self.root}/etcd{i}",
            ETCD_INITIAL_ADVERTISE_PEER_URLS=self.etcd_url(host, ETCD_PEER),
            ETCD_ADVERTISE_CLIENT_URLS=self.etcd_url(host, ETCD_CLIENT),
            ETCD_INITIAL_CLUSTER=",".join(f"etcd{j}={self.etcd_url(h, ETCD_PEER)}" for j, h in enumerate(ETCD_HOSTS, 1)))}
        self.services[f"etcd{i}"] = self.spawn(f"etcd{i}", host, ["etcd"], env)

    # --- Patroni ------------------------------------------------------------------------------
    def write_node_config(self, i, manager_defaults):
        """The shipped config.yml for node i on its host: its name, addresses, directories and
        certificate, and the test network for the shipped networks. With manager_defaults,
        Patroni's own ttl, loop_wait and retry_timeout instead of the shipped ones."""
        name = NAMES[i]
        host = NODE_HOSTS[name]
        config = shipped_paths(shipped_patroni_config(), host, self.root)
        address = self.net.address(host)
        config["name"] = name
        config["restapi"]["connect_address"] = f"{address}:{REST_PORT}"
        config["etcd3"]["hosts"] = ",".join(f"{self.net.address(h)}:{ETCD_CLIENT}" for h in ETCD_HOSTS)
        dcs = config["bootstrap"]["dcs"]
        if manager_defaults:
            for key in ("ttl", "loop_wait", "retry_timeout"):
                dcs.pop(key)
        # The backup test runs the archiving (tests/ha/backup_restore_test.py); no repository here.
        parameters = dcs["postgresql"]["parameters"]
        parameters["archive_mode"] = "off"
        del parameters["archive_command"]
        # One test network stands for both the database hosts' and the worker hosts'.
        network = f"10.213.{self.net.subnet}.0/24"
        config["postgresql"]["pg_hba"] = [line.replace("10.0.1.0/24", network).replace("10.0.2.0/24", network)
                                          for line in config["postgresql"]["pg_hba"]]
        pg = config["postgresql"]
        pg.update(connect_address=f"{address}:{PG_PORT}", data_dir=f"{self.root}/{name}",
                  pgpass=f"{self.root}/{name}.pgpass")
        pg["authentication"]["superuser"]["username"] = USER  # the user the test runs PostgreSQL as
        # Each host's own socket directory: the nodes share a file system.
        os.makedirs(f"{self.root}/sock/{name}", exist_ok=True)
        shutil.chown(f"{self.root}/sock/{name}", USER, USER)
        pg["parameters"] = dict(pg["parameters"], unix_socket_directories=f"{self.root}/sock/{name}",
                                logging_collector="on", log_directory="log")
        path = f"{self.root}/{name}.yml"
        with open(path, "w") as f:
            yaml.safe_dump(config, f)
        return path

    def start_node(self, name):
        self.services[name] = self.spawn(name, NODE_HOSTS[name], ["patroni", f"{self.root}/{name}.yml"], self.env)

    def create(self, manager_defaults=True):
        """etcd, then node1 bootstraps the cluster (and the database keeper), then node2 clones it."""
        self.make_certificates()
        self.start_etcd()
        for i in range(len(NAMES)):
            self.write_node_config(i, manager_defaults)
        self.start_node("node1")
        self.wait(lambda: settled(self.members(), ("leader",)), 120, "node1 did not become the leader")
        subprocess.run(["runuser", "-u", USER, "--", "psql", "-h", f"{self.root}/sock/node1", "-d", "postgres", "-qAtc",
                        "CREATE DATABASE keeper"], check=True, capture_output=True, env=self.env)
        self.start_node("node2")
        self.wait_settled(120)
        # Patroni wrote each node's pg_hba.conf from the shipped lines alone: initdb's "trust"
        # lines are gone (docs/scaling.md, "Setting it up": password logins only).
        for name in NAMES:
            trust = subprocess.run(["runuser", "-u", USER, "--", "psql", "-h", f"{self.root}/sock/{name}", "-d",
                                    "postgres", "-qAtc", "SELECT count(*) FROM pg_hba_file_rules WHERE auth_method = 'trust'"],
                                   check=True, capture_output=True, text=True, env=self.env).stdout.strip()
            if trust != "0":
                raise AssertionError(f"{name}'s pg_hba.conf has {trust} trust lines")

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
    def get(self, url):
        """GET of a JSON document over HTTPS, as a client with a certificate of the tier."""
        try:
            with urllib.request.urlopen(url, timeout=2, context=self.context) as r:
                return json.load(r)
        except (OSError, ValueError) as e:
            body = getattr(e, "read", lambda: b"")()  # Patroni answers 503 with its state as JSON
            try:
                return json.loads(body) if body else {}
            except ValueError:
                return {}

    def members(self):
        """Patroni's view of the cluster (name, role, state, ...), asked of any node that answers."""
        for name in NAMES:
            members = self.get(f"https://{self.node_address(name)}:{REST_PORT}/cluster").get("members")
            if members is not None:
                return members
        return []

    def states(self):
        return {m["name"]: f"{m['role']}/{m['state']}" for m in self.members()}

    def wait(self, predicate, seconds, what):
        if not wait.until(predicate, seconds, step=0.5):
            raise AssertionError(f"{what} after {seconds} s: {self.states()}")

    def wait_settled(self, seconds):
        self.wait(lambda: settled(self.members()), seconds, "no leader with a synchronous standby")

    def node_address(self, name):
        return self.net.address(NODE_HOSTS[name])

    def uri(self):
        """Both nodes, the one that takes writes chosen (libpq's multi-host URI), as the owner, over
        TLS with the node's certificate and address verified."""
        return (f"postgres://{USER}:{PASSWORD}@{','.join(self.node_address(n) for n in NAMES)}/keeper"
                f"?target_session_attrs=read-write&connect_timeout=3&sslmode=verify-full&sslrootcert={self.tls}/ca.crt")

    def libpq_hosts(self):
        """Both nodes as keeper's database_url names them (key=value), over TLS, verified."""
        return (f"host={','.join(self.node_address(n) for n in NAMES)} port={PG_PORT},{PG_PORT} dbname=keeper "
                f"target_session_attrs=read-write sslmode=verify-full sslrootcert={self.tls}/ca.crt")

    def primary(self):
        """The node that takes writes now, asked of the databases."""
        out = subprocess.run(["runuser", "-u", USER, "--", "psql", self.uri(), "-Atc", "SELECT inet_server_addr()"],
                             capture_output=True, text=True, env=self.env).stdout.strip()
        return next((n for n in NAMES if out == self.node_address(n)), None)

    # --- failures -----------------------------------------------------------------------------
    def postmaster(self, name):
        with open(f"{self.root}/{name}/postmaster.pid") as f:
            return int(f.readline())

    def kill_postmaster(self, name):
        """kill -9 of the node's postmaster alone; its Patroni lives on."""
        os.kill(self.postmaster(name), signal.SIGKILL)

    def kill_host(self, name):
        """The node's host loses its power: every process on it (its Patroni, its PostgreSQL, its
        etcd member) gone at once, and its peers hear nothing more (no reset), as after a power
        cut, until revive_host."""
        self.net.kill_host(NODE_HOSTS[name])
        self.services[name].wait()

    def revive_host(self, name):
        """The host is back: its address answers, its etcd member and its Patroni start (Patroni
        makes the node a standby of whoever leads now, with pg_rewind if it must)."""
        host = NODE_HOSTS[name]
        self.net.heal(host)
        self.start_etcd_member(ETCD_HOSTS.index(host) + 1)
        self.start_node(name)

    def pause_postgres(self, name, paused):
        """Stops (SIGSTOP) or resumes (SIGCONT) every process of the node's PostgreSQL: a standby
        that stops answering while its connections stay up, so the primary's commits wait for it."""
        for pid in [self.postmaster(name)] + descendants(self.postmaster(name)):
            try:
                os.kill(pid, signal.SIGSTOP if paused else signal.SIGCONT)
            except ProcessLookupError:
                pass

    # --- lifetime -----------------------------------------------------------------------------
    def spawn(self, name, host, cmd, env):
        """A service on host, in a session of its own, its output in <root>/<name>.log."""
        return self.net.spawn(host, cmd, f"{self.root}/{name}.log", env=env, cwd=self.root)

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
