"""Hosts on a network of their own, for the tests of what crosses one (docs/scaling.md, "Tested on a
network of hosts").

Each host is a Linux network namespace with one interface, eth0, joined by a veth pair to a bridge
in the machine's own namespace, with an address 10.213.<subnet>.<n>/24 of its own. The test itself
(the clients) runs in the machine's namespace, at .1. Processes started on a host see only its
interfaces, so everything between hosts is TCP over the bridge: nothing rides on loopback or on a
Unix socket. Each host's processes share a freezer cgroup.

The faults are the network's as well as kill's:
- partition(host): every packet to and from the host dropped, silently (nftables in its namespace);
- reset(host, filter): its live TCP connections that match destroyed (`ss -K`): a reset to the peer;
- lose(host, percent): that share of its packets dropped, each way;
- slow(host): its packets delayed (netem where the kernel has it, else a token bucket: a slow link);
- freeze(host): every process of it stopped at once (cgroup freezer), its sockets left open.

Needs root, iproute2 and nftables. close() ends every process, namespace, interface and cgroup."""
import fcntl
import os
import signal
import subprocess
import time

FREEZER_V1 = "/sys/fs/cgroup/freezer"


def sh(*cmd, check=True):
    return subprocess.run(cmd, check=check, capture_output=True, text=True)


class Network:
    def __init__(self, subnet, hosts, tag=None):
        """subnet: the third octet (each test a network of its own); hosts: name -> last octet."""
        self.subnet, self.hosts = subnet, dict(hosts)
        self.tag = tag or f"k{subnet}"
        self.bridge = f"{self.tag}br"
        self.processes = []
        self.delay_kind = None
        self.started = time.monotonic()
        # One run at a time per network (the names are the network's): a second waits here.
        self.lock = open(f"/run/keeper-test-network-{self.tag}.lock", "w")
        fcntl.flock(self.lock, fcntl.LOCK_EX)
        try:
            self.build()
        except BaseException:
            self.close()
            raise
        self.build_seconds = time.monotonic() - self.started

    # --- the network ----------------------------------------------------------------------------
    def address(self, host):
        return f"10.213.{self.subnet}.{self.hosts[host] if host != 'client' else 1}"

    def namespace(self, host):
        return f"{self.tag}-{host}"

    def build(self):
        self.remove_leftovers()
        sh("ip", "link", "add", self.bridge, "type", "bridge")
        sh("ip", "addr", "add", f"{self.address('client')}/24", "dev", self.bridge)
        sh("ip", "link", "set", self.bridge, "up")
        for host in self.hosts:
            ns, outside = self.namespace(host), f"{self.tag}{host}"[:15]
            sh("ip", "netns", "add", ns)
            sh("ip", "link", "add", outside, "type", "veth", "peer", "name", "eth0", "netns", ns)
            sh("ip", "link", "set", outside, "master", self.bridge, "up")
            self.run(host, "ip", "addr", "add", f"{self.address(host)}/24", "dev", "eth0")
            self.run(host, "ip", "link", "set", "eth0", "up")
            self.run(host, "ip", "link", "set", "lo", "up")
            if os.path.isdir(FREEZER_V1):
                os.makedirs(self.cgroup(host), exist_ok=True)

    def remove_leftovers(self):
        """What a killed earlier run of the same test left (the same names)."""
        self.tear_down()

    def cgroup(self, host):
        return f"{FREEZER_V1}/{self.namespace(host)}"

    # --- processes on a host --------------------------------------------------------------------
    def run(self, host, *cmd, check=True):
        return sh("ip", "netns", "exec", self.namespace(host), *cmd, check=check)

    def spawn(self, host, cmd, log, env=None, user="keeper", cwd=None):
        """cmd on host as user, in a session of its own, its output appended to the file log."""
        cgroup = self.cgroup(host)

        def enter_cgroup():
            if os.path.isdir(cgroup):
                with open(f"{cgroup}/cgroup.procs", "w") as f:
                    f.write(str(os.getpid()))

        as_user = ["runuser", "-u", user, "--"] if user else []
        with open(log, "a") as out:
            p = subprocess.Popen(["ip", "netns", "exec", self.namespace(host), *as_user, *cmd], env=env, stdout=out,
                                 stderr=out, cwd=cwd, start_new_session=True, preexec_fn=enter_cgroup)
        self.processes.append(p)
        return p

    def pids(self, host):
        """Every process on host: in its namespace, or in its cgroup (a process that is exiting)."""
        out = sh("ip", "netns", "pids", self.namespace(host), check=False).stdout.split()
        try:
            with open(f"{self.cgroup(host)}/cgroup.procs") as f:
                out += f.read().split()
        except OSError:
            pass
        return sorted({int(p) for p in out})

    def kill_processes(self, host):
        if os.path.isdir(self.cgroup(host)):
            self.thaw(host)
        for pid in self.pids(host):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def kill_host(self, host):
        """The host dies: every process on it, at once; its peers hear nothing (no FIN, no RST), as
        after a power cut, until the host's address answers again."""
        self.partition(host)
        self.kill_processes(host)

    # --- faults ---------------------------------------------------------------------------------
    def set_rules(self, host, rule):
        """One nftables rule applied to eth0 in each direction (none: the host's table removed)."""
        self.run(host, "nft", "delete", "table", "inet", "keeper_fault", check=False)
        if rule:
            script = (f"table inet keeper_fault {{\n"
                      f"  chain input {{ type filter hook input priority 0; iifname \"eth0\" {rule}; }}\n"
                      f"  chain output {{ type filter hook output priority 0; oifname \"eth0\" {rule}; }}\n}}\n")
            subprocess.run(["ip", "netns", "exec", self.namespace(host), "nft", "-f", "-"], input=script, text=True,
                           check=True, capture_output=True)

    def partition(self, host):
        self.set_rules(host, "drop")

    def lose(self, host, percent):
        self.set_rules(host, f"numgen random mod 100 < {percent} drop")

    def heal(self, host):
        """The host's packets pass again: no drop rule, no delay."""
        self.set_rules(host, None)
        self.run(host, "tc", "qdisc", "del", "dev", "eth0", "root", check=False)

    def slow(self, host, delay_ms=40):
        """Each packet the host sends delayed by delay_ms (netem); on a kernel without netem, a link
        of 1 Mbit/s that queues up to 200 ms (a token bucket), which delays a burst as much."""
        if self.run(host, "tc", "qdisc", "add", "dev", "eth0", "root", "netem", "delay", f"{delay_ms}ms",
                    check=False).returncode == 0:
            self.delay_kind = f"netem {delay_ms} ms"
        else:
            self.run(host, "tc", "qdisc", "add", "dev", "eth0", "root", "tbf", "rate", "1mbit", "burst", "4kb",
                     "latency", "200ms")
            self.delay_kind = "tbf 1 Mbit/s, 200 ms queue (this kernel has no netem)"

    def reset(self, host, filter_expression):
        """ss -K on host: its TCP connections matching the ss filter (e.g. "dport = :8443") destroyed.
        Returns how many there were."""
        out = self.run(host, "ss", "-K", "-t", "-n", "-H", "state", "established", *filter_expression.split()).stdout
        return len([line for line in out.splitlines() if line.strip()])

    def freeze(self, host):
        self.write_freezer(host, "FROZEN")

    def thaw(self, host):
        self.write_freezer(host, "THAWED")

    def write_freezer(self, host, state):
        with open(f"{self.cgroup(host)}/freezer.state", "w") as f:
            f.write(state)

    # --- the end --------------------------------------------------------------------------------
    def close(self):
        self.tear_down()
        self.lock.close()

    def tear_down(self):
        """Every process of every host killed (and waited for), then the namespaces, interfaces,
        cgroups and the bridge removed."""
        for host in self.hosts:
            self.kill_processes(host)
        for p in self.processes:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                pass
        for host in self.hosts:
            sh("ip", "link", "del", f"{self.tag}{host}"[:15], check=False)
            sh("ip", "netns", "del", self.namespace(host), check=False)
            self.remove_cgroup(host)
        sh("ip", "link", "del", self.bridge, check=False)

    def remove_cgroup(self, host):
        for _ in range(100):
            try:
                if os.path.isdir(self.cgroup(host)):
                    os.rmdir(self.cgroup(host))
                return
            except OSError:  # its last process still exiting
                time.sleep(0.1)
