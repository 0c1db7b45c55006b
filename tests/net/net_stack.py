"""keeper across hosts on a test network (hostnet.Network): a PostgreSQL host, worker hosts each
running keeper-fcgi on TCP, and an edge host running nginx with the shipped
keeper-locations.conf and keeper-upstream-hosts.conf, only its 10.0.0.x addresses replaced by
the test network's. All of it as the user keeper under one directory (keeper_stack.make_root)."""
import collections
import os
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ha"))
import keeper_stack  # noqa: E402
from keeper_stack import SOURCE, USER, as_keeper, call_outcome  # noqa: E402

BIN = "/usr/lib/postgresql/15/bin"
DB_PORT, FCGI_PORT, RETRY_PORT, HTTP_PORT = 5432, 9000, 9001, 8080


def wait_port(address, port, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection((address, port), 1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"{what} does not listen on {address}:{port} after {seconds} s")


def database_hosts(net, hosts):
    """libpq's key=value host list of the database hosts."""
    return (f"host={','.join(net.address(h) for h in hosts)} port={','.join([str(DB_PORT)] * len(hosts))} "
            "dbname=keeper target_session_attrs=read-write")


def start_database(net, root, host):
    """A standalone PostgreSQL on host, reached over the network by every other host."""
    as_keeper(f"{BIN}/initdb", "-D", f"{root}/pg", "-U", USER, "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8")
    with open(f"{root}/pg/pg_hba.conf", "w") as f:
        f.write(f"local all all trust\nhost all all 10.213.{net.subnet}.0/24 trust\n")
    net.spawn(host, [f"{BIN}/postgres", "-D", f"{root}/pg", "-c", f"listen_addresses={net.address(host)}",
                     "-c", f"unix_socket_directories={root}/sock", "-c", "max_connections=200"], f"{root}/log/pg.log")
    wait_port(net.address(host), DB_PORT, 30, "PostgreSQL")
    as_keeper("psql", f"postgres://{net.address(host)}/postgres", "-Atc", "CREATE DATABASE keeper")


def start_pool(net, root, host, env, workers=2):
    """keeper-fcgi on host: its main socket on FCGI_PORT, its retry socket on RETRY_PORT."""
    address = net.address(host)
    net.spawn(host, [f"{root}/bin/keeper-fcgi", "--workers", str(workers), "--listen", f"{address}:{FCGI_PORT}",
                     "--retry-listen", f"{address}:{RETRY_PORT}"], f"{root}/log/{host}.log", env=env)
    wait_port(address, RETRY_PORT, 30, f"keeper-fcgi on {host}")


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
    """nginx on host, in front of the worker hosts of the shipped keeper-upstream-hosts.conf (.11
    and .12 of the test network)."""
    with open(f"{SOURCE}/nginx/keeper-upstream-hosts.conf") as f:
        upstreams = f.read().replace("10.0.0.", f"10.213.{net.subnet}.")
    with open(f"{root}/nginx/hosts.conf", "w") as f:
        f.write(upstreams)
    with open(f"{root}/nginx/nginx.conf", "w") as f:
        f.write(f"""
user {USER};
pid {root}/nginx/nginx.pid;
error_log {root}/log/nginx-error.log warn;
daemon off;
events {{}}
http {{
    access_log {root}/log/nginx-access.log;
    include {SOURCE}/nginx/keeper-request-id.conf;
    include {SOURCE}/nginx/keeper-limits.conf;
    client_body_temp_path {root}/nginx/body;
    fastcgi_temp_path {root}/nginx/fastcgi;
    include {root}/nginx/hosts.conf;
    server {{
        listen {net.address(host)}:{HTTP_PORT};
        include {SOURCE}/nginx/keeper-errors.conf; include {SOURCE}/nginx/keeper-locations.conf;
    }}
}}
""")
    net.spawn(host, ["nginx", "-c", f"{root}/nginx/nginx.conf", "-e", f"{root}/log/nginx-error.log"],
              f"{root}/log/nginx.out", user=None)
    wait_port(net.address(host), HTTP_PORT, 30, "nginx")
    keeper_stack.front = (net.address(host), HTTP_PORT)


def keeper_on_cluster(net, root, cluster, password):
    """keeper in front of a Patroni cluster (tests/ha/patroni_cluster.py) on net: the schema, roles
    and test login made through it, a pool on w1 and on w2, nginx on the edge. Returns the
    keeper_stack.KeeperFront that made the database (its sql() and keeperctl())."""
    front = keeper_stack.KeeperFront(root, cluster.libpq_hosts(), cluster.uri(), password)
    front.env["KEEPER_DRAIN_SECONDS"] = "1"
    front.prepare_database()
    for host in ("w1", "w2"):
        start_pool(net, root, host, front.env)
    start_edge(net, root, "edge")
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
