"""keeper's tiers as a hostile peer on their network finds them (docs/scaling.md, "Encryption and
authentication between hosts", "The front").

The HA test's hosts on a network of their own (tests/harness/hostnet.py, 10.213.3.0/24): three
database hosts running etcd, Patroni and PostgreSQL from the shipped files with certificates from
scripts/make-certs, two worker hosts (the pool on Unix sockets behind nginx's shipped tier
listener), the front on an edge host; and `intruder`, a host on the same network with no
credentials, or with a certificate of another authority that it made itself.

test_an_intruder_is_served_nothing: from the intruder, each port of the database tier —
PostgreSQL, Patroni's REST API, etcd's client and peer ports — refuses it: in clear, over TLS
without a password or certificate, and with a certificate of its own authority. Each worker host
runs the worker host's site (keeper-tier.conf) and listens on the network with its tier listener
alone (no FastCGI port, nothing on 443 or 80), which refuses the intruder in clear, without a
certificate, and with its own certificate (and the front's headers); its own checks answer on its
loopback.

test_nothing_crosses_the_links_between_tiers_in_clear: while writers call keeper, a capture of
every packet to and from the database hosts' ports and the worker hosts' tier listeners (tcpdump
on the bridge) holds none of the login, its session id, the roles' password or the names of the
calls' functions: all of it is TLS.

Bounded: about a minute; it stops and removes everything it started. Needs root.
"""
import os
import shutil
import subprocess
import time
import unittest

from harness.hostnet import Network
from harness.keeper_stack import LOGIN, SESSION, Writers, make_root
from harness.net_stack import TIER_PORT, keeper_on_cluster
from harness.patroni_cluster import (ETCD_CLIENT, ETCD_HOSTS, ETCD_PEER, HOSTS, NODE_HOSTS, PASSWORD, PG_PORT,
                             REST_PORT, Cluster)


class HostilePeer(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root, cls.net, cls.cluster = make_root("keeper-security-"), None, None
        try:
            cls.net = Network(3, {**HOSTS, "intruder": 66})
            cls.cluster = Cluster(cls.root, cls.net)
            cls.cluster.create(manager_defaults=False)
            cls.front = keeper_on_cluster(cls.net, cls.root, cls.cluster, PASSWORD)
            # The intruder's own authority and a certificate from it, for the same address.
            tool = f"{os.environ['KEEPER_TEST_SOURCE_DIR']}/scripts/make-certs"
            subprocess.run([tool, f"{cls.root}/forged", "ca"], check=True, capture_output=True)
            subprocess.run([tool, f"{cls.root}/forged", "intruder", cls.net.address("intruder")], check=True,
                           capture_output=True)
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        if cls.cluster:
            cls.cluster.stop()
        if cls.net:
            cls.net.close()
        shutil.rmtree(cls.root, ignore_errors=True)

    def from_intruder(self, *cmd):
        return self.net.run("intruder", *cmd, check=False)

    def psql(self, conninfo):
        r = self.from_intruder("psql", conninfo, "-Atc", "SELECT current_user")
        return r.returncode, (r.stdout + r.stderr).strip()

    def https(self, url, *options):
        """curl's HTTP status of url from the intruder (000: no answer, the TLS handshake refused)."""
        r = self.from_intruder("curl", "-s", "-m", "3", "-o", "/dev/null", "-w", "%{http_code}", *options, url)
        return r.stdout.strip() or "000"

    def test_an_intruder_is_served_nothing(self):
        ca, forged = f"{self.root}/tls/ca.crt", f"{self.root}/forged"
        own_cert = ["--cert", f"{forged}/intruder.crt", "--key", f"{forged}/intruder.key"]
        probes = {}
        for name, host in NODE_HOSTS.items():
            address = self.net.address(host)
            base = f"host={address} port={PG_PORT} dbname=keeper connect_timeout=3"
            for what, conninfo in (
                    ("PostgreSQL in clear, the right password", f"{base} user=keeper_worker sslmode=disable password={PASSWORD}"),
                    ("PostgreSQL over TLS, no password", f"{base} user=keeper_worker sslmode=require"),
                    ("PostgreSQL over TLS, a guessed password", f"{base} user=keeper sslmode=require password=keeper"),
                    ("PostgreSQL replication in clear", f"{base} user=replicator sslmode=disable replication=true "
                                                        f"password={PASSWORD}")):
                code, out = self.psql(conninfo)
                probes[f"{name} {what}"] = (code != 0, out.splitlines()[-1] if out else "")
            rest = f"https://{address}:{REST_PORT}"
            probes[f"{name} Patroni REST in clear"] = (self.https(f"http://{address}:{REST_PORT}/cluster") != "200", "")
            probes[f"{name} Patroni REST, no certificate"] = (self.https(f"{rest}/cluster", "--cacert", ca) == "000", "")
            probes[f"{name} Patroni REST, its own certificate"] = (
                self.https(f"{rest}/cluster", "--cacert", ca, *own_cert) == "000", "")
            probes[f"{name} Patroni PATCH /config, its own certificate"] = (
                self.https(f"{rest}/config", "--cacert", ca, *own_cert, "-X", "PATCH", "-d",
                           '{"postgresql":{"parameters":{"archive_command":"id"}}}') == "000", "")
        for host in ETCD_HOSTS:
            address = self.net.address(host)
            for port in (ETCD_CLIENT, ETCD_PEER):
                probes[f"{host} etcd :{port} in clear"] = (self.https(f"http://{address}:{port}/version") != "200", "")
                probes[f"{host} etcd :{port}, no certificate"] = (
                    self.https(f"https://{address}:{port}/version", "--cacert", ca) == "000", "")
                probes[f"{host} etcd :{port}, its own certificate"] = (
                    self.https(f"https://{address}:{port}/version", "--cacert", ca, *own_cert) == "000", "")
        probes.update(self.worker_tier_probes(own_cert))
        # The same probes succeed with the tier's credentials: the refusals above are not an
        # unreachable host's.
        db1 = self.net.address("db1")
        client = ["--cert", f"{self.root}/tls/client.crt", "--key", f"{self.root}/tls/client.key"]
        control = {"etcd with the tier's certificate": self.https(f"https://{db1}:{ETCD_CLIENT}/version", "--cacert", ca,
                                                                  *client),
                   "Patroni with the tier's certificate": self.https(f"https://{db1}:{REST_PORT}/cluster", "--cacert", ca,
                                                                     *client),
                   "PostgreSQL with the password over TLS": self.psql(
                       f"host={db1},{self.net.address('db2')} dbname=keeper user=keeper_worker password={PASSWORD} "
                       f"sslmode=verify-full sslrootcert={ca} target_session_attrs=read-write")[0],
                   "a worker host's own /live on its loopback": self.net.run(
                       "w1", "curl", "-s", "-m", "3", "-o", "/dev/null", "-w", "%{http_code}",
                       "http://127.0.0.1/live", check=False).stdout.strip(),
                   "a worker host's tier listener with the front's certificate": self.https(
                       f"https://{self.net.address('w1')}:{TIER_PORT}/GlobalApi.asmx/GetUtcNow", "--cacert",
                       f"{self.root}/tier/ca.crt", "--cert", f"{self.root}/tier/front.crt", "--key",
                       f"{self.root}/tier/front.key")}
        for what, (refused, said) in probes.items():
            print(f"intruder: {what}: {'refused' if refused else 'SERVED'} {said}", flush=True)
        print(f"with credentials: {control}", flush=True)
        self.assertEqual(control, {"etcd with the tier's certificate": "200", "Patroni with the tier's certificate": "200",
                                   "PostgreSQL with the password over TLS": 0,
                                   "a worker host's own /live on its loopback": "200",
                                   "a worker host's tier listener with the front's certificate": "200"})
        self.assertEqual([what for what, (refused, _) in probes.items() if not refused], [])

    def worker_tier_probes(self, own_cert):
        """The worker hosts: what listens on the network is the tier listener alone (keeper's pool
        is on Unix sockets), and it serves nothing to a peer without the front's certificate, another
        worker host's included."""
        probes, ca = {}, f"{self.root}/tier/ca.crt"
        call = "/GlobalApi.asmx/GetUtcNow"
        for host in ("w1", "w2"):
            address = self.net.address(host)
            # Listeners on the network: loopback's (the host's own checks, keeper-tier.conf) do not count.
            local = [line.split()[3] for line in self.net.run(host, "ss", "-ltnH").stdout.splitlines() if line.strip()]
            listening = sorted({a.rsplit(":", 1)[1] for a in local if not a.startswith(("127.", "[::1]"))})
            probes[f"{host} a TCP listener besides the tier listener (listening: {','.join(listening)})"] = (listening == [str(TIER_PORT)], "")
            for port in (9000, 9001):  # where a pool would have listened for nginx across hosts
                probes[f"{host} FastCGI :{port}"] = (self.https(f"http://{address}:{port}/") == "000", "")
            # A single host's site (HTTPS on 443, health on 80) is not a worker host's: nothing answers there.
            probes[f"{host} HTTPS :443"] = (self.https(f"https://{address}{call}", "-k") == "000", "")
            probes[f"{host} HTTP :80 /live"] = (self.https(f"http://{address}/live") == "000", "")
            tier = f"https://{address}:{TIER_PORT}{call}"
            for what, options in (("no certificate", ["--cacert", ca]), ("its own certificate", ["--cacert", ca, *own_cert]),
                                  ("its own certificate and the front's headers",
                                   ["--cacert", ca, *own_cert, "-H", "X-Keeper-Request-Id: 1795790831585fa06153fedfc18cbe53",
                                    "-H", "X-Keeper-Client-Addr: 192.0.2.1"])):
                probes[f"{host} tier listener, {what}"] = (self.https(tier, *options) in ("400", "000"), "")
            probes[f"{host} tier listener in clear"] = (self.https(f"http://{address}:{TIER_PORT}{call}") in ("400", "000"), "")
            # The other worker host, with its own certificate of the tier's authority, speaking as the front.
            other = "w2" if host == "w1" else "w1"
            sent = self.net.run(other, "curl", "-s", "-m", "3", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", ca,
                                "--cert", f"{self.root}/tier/{other}.crt", "--key", f"{self.root}/tier/{other}.key",
                                "-H", "X-Keeper-Client-Addr: 192.0.2.1", "-H", "X-Keeper-Sent-Before: 1",
                                "-H", "X-Keeper-Request-Id: 1795790831585fa06153fedfc18cbe53", tier, check=False)
            probes[f"{host} tier listener, {other}'s certificate and the front's headers"] = (
                sent.stdout.strip() == "403", sent.stdout.strip())
        return probes

    def test_nothing_crosses_the_links_between_tiers_in_clear(self):
        ports = " or ".join(f"port {p}" for p in (PG_PORT, REST_PORT, ETCD_CLIENT, ETCD_PEER, TIER_PORT))
        capture = f"{self.root}/db.pcap"
        dump = subprocess.Popen(["tcpdump", "-i", self.net.bridge, "-s", "0", "-U", "-w", capture, ports],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(1)
            writers = Writers(threads=4)
            writers.start()
            time.sleep(4)
            writers.finish()
            # A standby that clones or rejoins streams everything: a switchover makes both happen.
            self.cluster.switchover(self.cluster.primary(), next(n for n in NODE_HOSTS if n != self.cluster.primary()))
            self.cluster.wait_settled(60)
        finally:
            dump.terminate()
            dump.wait(10)
        with open(capture, "rb") as f:
            packets = f.read()
        acked = len(writers.acked())
        secrets = {"the login": LOGIN, "its session id": SESSION, "the roles' password": PASSWORD,
                   "a call's function": "keeper_topup", "the audit table": "audit_log"}
        found = [what for what, text in secrets.items() if text.encode() in packets]
        print(f"capture of the links between tiers: {len(packets)} bytes while {acked} writes were acknowledged; "
              f"found in clear: {found or 'nothing'}", flush=True)
        self.assertGreater(acked, 50)
        self.assertGreater(len(packets), 100000, "the capture saw the traffic")
        self.assertEqual(found, [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
