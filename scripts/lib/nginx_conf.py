#!/usr/bin/python3
"""The one writer of a private nginx's configuration: every test stack, `scripts/serve` and
`scripts/bench` start nginx from a file this writes. Production uses nginx/keeper-site.conf.

Two things, as a module (the Python tests import it) and as a command (scripts/lib/stack.sh):

- `shipped`: a shipped nginx/ file with its production paths and addresses replaced by the
  stack's. Each replacement must find its text, so a shipped file that drifts fails loudly
  instead of starting a stack that silently uses /etc or /run.
- `conf`: nginx.conf itself: the stack's pid, error log and temporary files under its own
  directory, keeper's shipped http-level files (request id, log formats, limits), then the
  stack's own http-level text (its upstreams and servers).

    nginx_conf.py shipped [--nginx-dir DIR] NAME OUT [OLD NEW]...
    nginx_conf.py conf OUT --prefix DIR --error-log FILE --http-file FILE [--user U]
                  [--workers N] [--connections N] [--rlimit N] [--access-log "FILE FORMAT"]
                  [--nginx-dir DIR] [--foreground] [--no-keeper-files]
"""
import argparse
import os
import sys

SOURCE_NGINX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "nginx")
# keeper's http-level files, in the order keeper-site.conf includes them.
HTTP_FILES = ("keeper-request-id.conf", "keeper-log-format.conf", "keeper-limits.conf")
# What a whole shipped site (keeper-tier.conf) opens with, at http level: a test's nginx.conf has
# keeper's http-level files already (conf()) and an upstream of its own, so shipped() drops them.
SITE_INCLUDES = "".join(f"include /etc/keeper/nginx/{name};\n" for name in (*HTTP_FILES, "keeper-upstream.conf"))


def shipped(name, out, replacements, nginx_dir=SOURCE_NGINX):
    """nginx/NAME with each (old, new) of replacements made, written to out; returns out. Every
    old must occur in the file. A whole site's own http-level includes (SITE_INCLUDES) go."""
    with open(os.path.join(nginx_dir, name)) as f:
        text = f.read().replace(SITE_INCLUDES, "")
    for old, new in replacements:
        if old not in text:
            raise ValueError(f"{old!r} is not in nginx/{name}: the shipped file changed")
        text = text.replace(old, new)
    with open(out, "w") as f:
        f.write(text)
    return out


def conf(out, prefix, error_log, http, user=None, workers=None, connections=None, rlimit=None, access_log=None,
         nginx_dir=SOURCE_NGINX, foreground=False, keeper_files=True):
    """Writes nginx.conf to out for an nginx whose pid and temporary files live in prefix; http is
    the http block's own text, access_log "FILE FORMAT" (none: off). keeper_files=False leaves out
    keeper's http-level files, for an http text that includes a whole shipped site. Returns out."""
    lines = [f"# Written by scripts/lib/nginx_conf.py for a private nginx; production uses keeper-site.conf."]
    if user:
        lines.append(f"user {user};")
    if workers:
        lines.append(f"worker_processes {workers};")
    if rlimit:
        lines.append(f"worker_rlimit_nofile {rlimit};")
    # As docs/operations.md's nginx step sets it in production: PCRE's JIT for the maps' and the
    # locations' regular expressions.
    lines.append("pcre_jit on;")
    if foreground:
        lines.append("daemon off;")
    lines += [f"pid {prefix}/nginx.pid;", f"error_log {error_log} warn;",
              f"events {{ worker_connections {connections}; }}" if connections else "events {}", "http {"]
    if keeper_files:
        lines += [f"    include {os.path.abspath(os.path.join(nginx_dir, name))};" for name in HTTP_FILES]
    lines.append(f"    access_log {access_log};" if access_log else "    access_log off;")
    for kind in ("client_body", "fastcgi", "proxy", "uwsgi", "scgi"):
        lines.append(f"    {kind}_temp_path {prefix}/tmp/{kind};")
    lines += [http.rstrip("\n"), "}", ""]
    os.makedirs(os.path.join(prefix, "tmp"), exist_ok=True)
    with open(out, "w") as f:
        f.write("\n".join(lines))
    return out


def main(argv):
    if argv and argv[0] == "shipped":
        nginx_dir = SOURCE_NGINX
        if len(argv) > 2 and argv[1] == "--nginx-dir":
            nginx_dir, argv = argv[2], argv[:1] + argv[3:]
        if len(argv) >= 3 and len(argv) % 2 == 1:
            shipped(argv[1], argv[2], list(zip(argv[3::2], argv[4::2])), nginx_dir)
            return 0
    parser = argparse.ArgumentParser(prog="nginx_conf.py conf")
    parser.add_argument("out")
    for option in ("--prefix", "--error-log", "--http-file"):
        parser.add_argument(option, required=True)
    for option in ("--user", "--workers", "--connections", "--rlimit", "--access-log"):
        parser.add_argument(option)
    parser.add_argument("--nginx-dir", default=SOURCE_NGINX)
    parser.add_argument("--foreground", action="store_true")
    parser.add_argument("--no-keeper-files", action="store_true")
    if not argv or argv[0] != "conf":
        print(__doc__, file=sys.stderr)
        return 2
    a = parser.parse_args(argv[1:])
    with open(a.http_file) as f:
        http = f.read()
    conf(a.out, a.prefix, a.error_log, http, a.user, a.workers, a.connections, a.rlimit, a.access_log, a.nginx_dir,
         a.foreground, not a.no_keeper_files)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except ValueError as e:
        print(f"nginx_conf.py: {e}", file=sys.stderr)
        sys.exit(1)
