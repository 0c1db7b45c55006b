"""keeper across hosts on a test network (hostnet.Network), as docs/scaling.md ships it: a
PostgreSQL host; worker hosts, each running keeper-fcgi on Unix sockets behind its own nginx with
the shipped keeper-tier.conf (mutual TLS); and the front, an edge host running nginx with the
shipped keeper-front-locations.conf and keeper-front-hosts.conf, only addresses and paths replaced
by the test's. The processes run as the user keeper (nginx's master as root), under one directory
(keeper_stack.make_root)."""
import collections
import os
import signal
import time

from harness import keeper_stack, wait
from harness.keeper_stack import SOURCE, call_outcome
import nginx_conf  # the one writer of a test nginx's files (scripts/lib, on PYTHONPATH)
import private_stack  # the one starter of a test's processes (scripts/lib)
from private_stack import USER, run, wait_port

DB_PORT, TIER_PORT, HTTP_PORT = 5432, 8443, 8080


def database_hosts(net, hosts):
    """libpq's key=value host list of the database hosts."""
    return (f"host={','.join(net.address(h) for h in hosts)} port={','.join([str(DB_PORT)] * len(hosts))} "
            "dbname=keeper target_session_attrs=read-write")


def start_database(net, root, host):
    """A standalone PostgreSQL on host, reached over the network by every other host."""
    private_stack.init_postgres(f"{root}/pg")
    with open(f"{root}/pg/pg_hba.conf", "w") as f:
        f.write(f"local all all trust\nhost all all 10.213.{net.subnet}.0/24 trust\n")
    net.spawn(host, [f"{private_stack.pg_bin()}/postgres", "-D", f"{root}/pg", "-c", f"listen_addresses={net.address(host)}",
                     "-c", f"unix_socket_directories={root}/sock", "-c", "max_connections=200"], f"{root}/log/pg.log")
    wait_port(net.address(host), DB_PORT, 30, "PostgreSQL")
    private_stack.ensure_database(f"postgres://{net.address(host)}/postgres")


def make_tier_certificates(net, root, hosts):
    """The worker tier's authority (scripts/make-certs) in root/tier, a certificate for each worker
    host (its name in keeper-front-hosts.conf, HOST.keeper.internal, and its address) and one
    for the front."""
    tool, tier = f"{SOURCE}/scripts/make-certs", f"{root}/tier"
    run([tool, tier, "ca"])
    for host in hosts:
        run([tool, tier, host, f"{host}.keeper.internal", net.address(host)])
    run([tool, tier, "front", "front.keeper.internal"])


def host_nginx_conf(root, host, http):
    """An nginx.conf for host (nginx_conf.conf), under root/HOST-nginx, its http block's body
    http; in the foreground, as the test network runs its processes."""
    base = f"{root}/{host}-nginx"
    os.makedirs(base, exist_ok=True)
    return nginx_conf.conf(f"{base}/nginx.conf", base, f"{root}/log/{host}-nginx-error.log", http, user=USER,
                           foreground=True)


def start_nginx(net, root, host, conf):
    net.spawn(host, ["nginx", "-c", conf, "-e", f"{root}/log/{host}-nginx-error.log"], f"{root}/log/{host}-nginx.out",
              user=None)


def stop_nginx(root, host):
    """host's nginx stopped as `systemctl stop nginx` does (SIGQUIT: the calls it holds are answered
    first); returns once it is gone."""
    with open(f"{root}/{host}-nginx/nginx.pid") as f:
        pid = int(f.read())
    os.kill(pid, signal.SIGQUIT)
    for _ in range(300):
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":  # exited, its parent the test
                    return
        except OSError:
            return
        time.sleep(0.1)
    raise AssertionError(f"nginx on {host} did not stop in 30 s")


def restart_nginx(net, root, host):
    start_nginx(net, root, host, f"{root}/{host}-nginx/nginx.conf")
    wait_port(net.address(host), TIER_PORT, 30, f"nginx on {host}")


def start_pool(net, root, host, env, workers=2):
    """A worker host as shipped: keeper-fcgi on Unix sockets of its own (nothing of it listens on
    the network), and nginx with the shipped keeper-tier.conf on TIER_PORT, in front of it with
    keeper-upstream.conf and keeper-locations.conf. Needs make_tier_certificates first."""
    run_dir, address = f"{root}/{host}", net.address(host)
    private_stack.owned(run_dir)
    net.spawn(host, private_stack.pool_command(f"{root}/bin/keeper-fcgi", run_dir, workers), f"{root}/log/{host}.log",
              env=env)
    base = f"{root}/{host}-nginx"
    os.makedirs(base, exist_ok=True)
    upstream = nginx_conf.shipped("keeper-upstream.conf", f"{base}/keeper-upstream.conf", [("/run/keeper/", f"{run_dir}/")])
    tier = nginx_conf.shipped("keeper-tier.conf", f"{base}/keeper-tier.conf", [
        ("10.0.2.11:8443", f"{address}:{TIER_PORT}"),
        ("/etc/keeper/tier/host.", f"{root}/tier/{host}."),
        ("/etc/keeper/tier/ca.crt", f"{root}/tier/ca.crt"),
        ("/var/log/nginx/keeper-", f"{root}/log/{host}-nginx-"),
        ("/etc/keeper/nginx/", f"{SOURCE}/nginx/")])
    start_nginx(net, root, host, host_nginx_conf(root, host, f"    include {upstream};\n    include {tier};"))
    if not wait.until(lambda: os.path.exists(f"{run_dir}/keeper-retry.sock"), 30):
        raise AssertionError(f"keeper-fcgi on {host} made no retry socket in 30 s")
    wait_port(address, TIER_PORT, 30, f"nginx on {host}")


def workers_of(net, host):
    """The pids of host's keeper-fcgi workers (each a child of the pool process)."""
    parents = {}
    for pid in net.pids(host):
        try:
            with open(f"/proc/{pid}/stat") as f:
                head, rest = f.read().rsplit(")", 1)
            if head.endswith("(keeper-fcgi"):
                parents[pid] = int(rest.split()[1])
        except (OSError, ValueError):
            pass
    return [pid for pid, parent in parents.items() if parent in parents]


def start_edge(net, root, host):
    """The front on host: nginx with the shipped keeper-front-locations.conf, passing to the worker
    hosts of the shipped keeper-front-hosts.conf (w1 and w2: .11 and .12 of the test network) on
    their tier listeners, its certificate the front's of make_tier_certificates."""
    base = f"{root}/{host}-nginx"
    os.makedirs(base, exist_ok=True)
    hosts = nginx_conf.shipped("keeper-front-hosts.conf", f"{base}/keeper-front-hosts.conf",
                    [("10.0.2.", f"10.213.{net.subnet}."), (":8443", f":{TIER_PORT}")])
    locations = nginx_conf.shipped("keeper-front-locations.conf", f"{base}/keeper-front-locations.conf",
                        [("/etc/keeper/tier/", f"{root}/tier/")])
    start_nginx(net, root, host, host_nginx_conf(root, host, f"""    include {hosts};
    server {{
        listen {net.address(host)}:{HTTP_PORT};
        access_log {root}/log/{host}-nginx-access.log keeper;
        include {SOURCE}/nginx/keeper-errors.conf;
        include {locations};
    }}"""))
    wait_port(net.address(host), HTTP_PORT, 30, "nginx")
    keeper_stack.front = (net.address(host), HTTP_PORT)


def start_worker_hosts(net, root, env, hosts=("w1", "w2"), edge="edge"):
    """The worker tier: its certificates, each worker host (start_pool) and the front."""
    make_tier_certificates(net, root, hosts)
    for host in hosts:
        start_pool(net, root, host, env)
    start_edge(net, root, edge)


def keeper_on_cluster(net, root, cluster, password):
    """keeper in front of a Patroni cluster (tests/harness/patroni_cluster.py) on net: the schema, roles
    and test login made through it, a pool on w1 and on w2, nginx on the edge. Returns the
    keeper_stack.KeeperFront that made the database (its sql() and keeperctl())."""
    front = keeper_stack.KeeperFront(root, cluster.libpq_hosts(), cluster.uri(), password)
    front.env["KEEPER_DRAIN_SECONDS"] = "1"
    front.prepare_database()
    start_worker_hosts(net, root, front.env)
    return front


def verdict(calls, amounts, wmids):
    """Each call of keeper_stack.Writers (kind, key, started, ended, status, result, request id)
    against what the database holds (amounts: top-ups per amount; wmids: the permits): the
    acknowledged ones applied once, the "not applied" ones absent, and each "outcome unknown"
    answered by /call-outcome as what happened. Returns (figures, problems)."""
    def applied(c):
        return (c[0] == "topup" and amounts[c[1]] > 0) or (c[0] == "permit" and c[1] in wmids)

    acked = [c for c in calls if c[4] == 200 and c[5] == "0"]
    failed = [c for c in calls if not (c[4] == 200 and c[5] == "0")]
    unknown = [c for c in failed if c[5] == "unknown"]
    problems = {
        "acknowledged_but_lost": [c for c in acked if not applied(c)],
        "applied_twice": [a for a, n in amounts.items() if n > 1],
        "not_applied_but_applied": [c for c in failed if c[5] != "unknown" and applied(c)],
        "unknown_resolved_wrongly": [],
    }
    for c in unknown:
        answer = call_outcome(c[6]) if c[6] else {}
        if answer.get("outcome") != ("recorded" if applied(c) else "none"):
            problems["unknown_resolved_wrongly"].append((c, answer))
    figures = {"calls": len(calls), "acknowledged": len(acked), "failed": len(failed),
               "failed_statuses": dict(collections.Counter(c[4] for c in failed)), "outcome_unknown": len(unknown),
               "unknown_applied": sum(1 for c in unknown if applied(c))}
    figures.update({k: len(v) for k, v in problems.items()})
    return figures, {k: v for k, v in problems.items() if v}
