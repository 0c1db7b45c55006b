#!/usr/bin/env bash
# Installs keeper's Debian package on this machine, checks what it installed, verifies and scores
# the systemd units, checks the nginx site, starts the pool the way systemd would (socket
# activation), calls an operation through nginx with the installed config, and purges the package;
# then the same for keeper-front, the front's package (packaging/front).
# Needs root and the test stack's database (KEEPER_TEST_DATABASE_URL); run through scripts/test.
set -uo pipefail
: "${KEEPER_TEST_DATABASE_URL:?run through scripts/test}" "${KEEPER_TEST_WORKER_DATABASE_URL:?run through scripts/test}"
: "${KEEPER_TEST_BUILD_DIR:?run through scripts/test}" "${KEEPER_SECRET_KEY_FILE:?run through scripts/test}"
PORT=18082
SOURCE=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d /tmp/keeper-package-test.XXXXXX)
chmod 755 "$WORK"
passed=0 failed=0
check() {  # check "what" command...
  local what=$1; shift
  if "$@" >"$WORK/last.out" 2>&1; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $what" >&2; sed 's/^/  /' "$WORK/last.out" >&2; fi
}
cleanup() {
  local pid
  if [ -f "$WORK/nginx/nginx.pid" ]; then
    pid=$(cat "$WORK/nginx/nginx.pid")
    kill "$pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  [ -n "${activator:-}" ] && kill "$activator" 2>/dev/null && wait "$activator" 2>/dev/null
  dpkg --purge keeper >/dev/null 2>&1
  dpkg --purge keeper-front >/dev/null 2>&1
  [ -n "${placed_metrics_script:-}" ] && rm -f /usr/local/sbin/keeper-backup-metrics
  rm -rf "$WORK"
}
trap cleanup EXIT

if dpkg-query -W -f='${Status}' keeper 2>/dev/null | grep -q "install ok installed"; then
  echo "FAIL: a keeper package is installed on this machine already; this test would replace it" >&2
  echo "0 passed, 1 failed"; exit 1
fi

(cd "$KEEPER_TEST_BUILD_DIR" && cpack -G DEB >/dev/null) || { echo "0 passed, 1 failed"; exit 1; }
deb=$(ls "$KEEPER_TEST_BUILD_DIR"/package/keeper_*.deb)
check "the package installs" dpkg -i "$deb"
for f in /usr/sbin/keeper-fcgi /usr/bin/keeperctl /lib/systemd/system/keeper.socket /lib/systemd/system/keeper.service \
         /lib/systemd/system/keeper-migrate.service /lib/systemd/system/keeper-maintain.service \
         /lib/systemd/system/keeper-maintain.timer /etc/keeper/keeper.conf /etc/keeper/nginx/keeper-locations.conf /etc/keeper/nginx/keeper-errors.conf \
         /etc/nginx/sites-available/keeper /usr/share/keeper/migrations/0001_sessions.sql \
         /usr/share/keeper/prometheus/keeper-alerts.yml /usr/share/keeper/grafana/keeper-dashboard.json /usr/share/man/man8/keeper-fcgi.8 \
         /usr/share/keeper/nginx/keeper-tier.conf /usr/share/keeper/nginx/keeper-front-site.conf \
         /usr/share/keeper/nginx/keeper-front-hosts.conf /etc/keeper/nginx/keeper-front-locations.conf /etc/keeper/admin.conf /usr/share/keeper/scripts/make-certs; do
  check "installed $f" test -e "$f"
done
check "the system user exists" id keeper
check "keeperctl's system user exists, of group keeper" sh -c '[ "$(id -gn keeper-admin)" = keeper ]'
check "the config is readable by the service user only" sh -c '[ "$(stat -c %a:%G /etc/keeper/keeper.conf)" = 640:keeper ]'
check "admin.conf is readable by keeperctl's user only" sh -c '[ "$(stat -c %a:%U /etc/keeper/admin.conf)" = 600:keeper-admin ]'
check "keeper-fcgi --help" /usr/sbin/keeper-fcgi --help
check "keeperctl --help" /usr/bin/keeperctl --help
check "man keeper-fcgi" man -w keeper-fcgi
check "man keeperctl" man -w keeperctl

verify() { local out; out=$(systemd-analyze verify "$@" 2>&1) && [ -z "$out" ] || { echo "$out"; return 1; }; }
# keeper-fcgi --check-config refuses a database whose schema is not the one the pool was built for
# (the pool itself waits for it: tests/deploy). The pool waits, answering every call "not applied",
# for a key file it can read and that opens what the database holds, saying what is wrong (an
# exit would have systemd restart it into the start limit); with no socket to answer on, it
# refuses an unknown configuration key, naming it.
admin_url="${KEEPER_TEST_DATABASE_URL/dbname=keeper/dbname=postgres}"
psql "$admin_url" -qc "DROP DATABASE IF EXISTS keeper_package_empty" -qc "CREATE DATABASE keeper_package_empty" >/dev/null
waits_saying() {  # waits_saying "expected message" env...: the pool stays up and its log says why
  local expected=$1; shift
  env "$@" KEEPER_CONFIG=/etc/keeper/keeper.conf /usr/sbin/keeper-fcgi --listen "$WORK/refuse.sock" >"$WORK/waits.log" 2>&1 &
  local pid=$! alive=no
  for _ in $(seq 50); do grep -qF "$expected" "$WORK/waits.log" && break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && alive=yes
  kill "$pid" 2>/dev/null  # a stop ends a waiting pool at once
  for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && { kill -9 "$pid"; echo "SIGTERM did not end the waiting pool"; return 1; }
  wait "$pid" 2>/dev/null
  [ "$alive" = yes ] && grep -qF "waiting: " "$WORK/waits.log" && grep -qF "$expected" "$WORK/waits.log" || { cat "$WORK/waits.log"; return 1; }
}
check_config_refuses() {  # check_config_refuses status "expected message" env...
  local want=$1 expected=$2 status=0; shift 2
  local out; out=$(env "$@" KEEPER_CONFIG=/etc/keeper/keeper.conf /usr/sbin/keeper-fcgi --check-config 2>&1) || status=$?
  [ "$status" = "$want" ] && grep -qF "$expected" <<<"$out" || { echo "exit $status: $out"; return 1; }
}
# Exit 3: the configuration is right, the database not ready (a fresh install before its migration).
check "keeper-fcgi --check-config tells an empty database from the configuration: exit 3, the version and what to run" \
  check_config_refuses 3 "database schema is version 0, this keeper needs" KEEPER_SECRET_KEY_FILE="$KEEPER_SECRET_KEY_FILE" \
  KEEPER_DATABASE_URL="${KEEPER_TEST_DATABASE_URL/dbname=keeper/dbname=keeper_package_empty}"
check_config_passes() {  # what it said, when it did not pass
  local out status=0
  out=$(env KEEPER_CONFIG=/etc/keeper/keeper.conf KEEPER_SECRET_KEY_FILE="$KEEPER_SECRET_KEY_FILE" \
    KEEPER_DATABASE_URL="$KEEPER_TEST_WORKER_DATABASE_URL" /usr/sbin/keeper-fcgi --check-config 2>&1) || status=$?
  grep -q "configuration ok" <<<"$out" || { echo "exit $status: $out"; return 1; }
}
check "keeper-fcgi --check-config passes a good configuration" check_config_passes
psql "$admin_url" -qc "DROP DATABASE keeper_package_empty" >/dev/null
check "the pool waits for its key, naming the setting" \
  waits_saying "secret_key_file (/nonexistent/secret.keys): cannot read" KEEPER_SECRET_KEY_FILE=/nonexistent/secret.keys
printf 'k1 %s\n' "$(head -c 32 /dev/urandom | base64)" >"$WORK/wrong.keys" && chmod 644 "$WORK/wrong.keys"
check "the pool waits for the key the database was sealed with" \
  waits_saying "key k1 of the key file is not the key the database was sealed with" KEEPER_SECRET_KEY_FILE="$WORK/wrong.keys" \
  KEEPER_DATABASE_URL="$KEEPER_TEST_WORKER_DATABASE_URL"
check "the package made a key file readable by root and keeper only" sh -c '[ "$(stat -c %a:%U:%G /etc/keeper/secret.keys)" = 640:root:keeper ]'
printf 'wokers = 3\n' >"$WORK/bad.conf"
bad_config() { local out; out=$(/usr/sbin/keeper-fcgi --config "$WORK/bad.conf" 2>&1) && return 1; grep -qF "unknown key 'wokers'" <<<"$out" || { echo "$out"; return 1; }; }
check "the pool refuses an unknown configuration key, naming it" bad_config

check "systemd-analyze verify is clean" verify /lib/systemd/system/keeper.socket /lib/systemd/system/keeper.service \
  /lib/systemd/system/keeper-migrate.service /lib/systemd/system/keeper-maintain.service /lib/systemd/system/keeper-maintain.timer
# The database hosts' backup units, as docs/operations.md has them copied to /etc/systemd/system
# (with the metrics script they run).
if [ ! -e /usr/local/sbin/keeper-backup-metrics ]; then
  install -m 755 /usr/share/keeper/scripts/backup-metrics /usr/local/sbin/keeper-backup-metrics && placed_metrics_script=1
fi
mkdir -p "$WORK/backup-units"
cp /usr/share/keeper/pgbackrest/keeper-backup-*.timer "$WORK/backup-units/"
cp /usr/share/keeper/pgbackrest/keeper-backup@.service "$WORK/backup-units/keeper-backup@full.service"
cp /usr/share/keeper/pgbackrest/keeper-backup@.service "$WORK/backup-units/keeper-backup@diff.service"
check "systemd-analyze verify is clean for the backup units" verify "$WORK"/backup-units/*
backup_score=$(systemd-analyze security --offline=yes "$WORK/backup-units/keeper-backup@full.service" 2>&1 |
  awk '/Overall exposure level/ { print $(NF-2) }')
check "systemd-analyze security rates keeper-backup@.service 2.0 or lower (got ${backup_score:-none})" \
  awk -v s="${backup_score:-99}" 'BEGIN { exit !(s <= 2.0) }'
backup_metrics() {
  mkdir -p "$WORK/textfile" && KEEPER_TEXTFILE_DIR="$WORK/textfile" /usr/share/keeper/scripts/backup-metrics diff &&
    grep -qE '^keeper_backup_last_success_timestamp_seconds\{type="diff"\} [0-9]{10}$' "$WORK/textfile/keeper-backup-diff.prom"
}
check "backup-metrics writes the backup's time for node_exporter" backup_metrics
exposure() { systemd-analyze security --offline=yes /lib/systemd/system/keeper.service 2>&1 | tee "$WORK/security.txt" |
             awk '/Overall exposure level/ { print $(NF-2) }'; }
score=$(exposure)
check "systemd-analyze security rates keeper.service 2.0 or lower (got ${score:-none})" awk -v s="${score:-99}" 'BEGIN { exit !(s <= 2.0) }'
maintain_score=$(systemd-analyze security --offline=yes /lib/systemd/system/keeper-maintain.service 2>&1 | awk '/Overall exposure level/ { print $(NF-2) }')
check "systemd-analyze security rates keeper-maintain.service 2.0 or lower (got ${maintain_score:-none})" \
  awk -v s="${maintain_score:-99}" 'BEGIN { exit !(s <= 2.0) }'

# Test nginx configurations come from the one writer of them (scripts/lib/nginx_conf.py), each
# replacement in a shipped file checked.
NGINX_CONF="python3 $SOURCE/scripts/lib/nginx_conf.py"
mkdir -p "$WORK/nginx"
echo "    include /etc/nginx/sites-available/keeper;" >"$WORK/nginx/site-http.conf"
$NGINX_CONF conf "$WORK/nginx/site-test.conf" --prefix "$WORK/nginx" --error-log "$WORK/nginx-error.log" \
  --http-file "$WORK/nginx/site-http.conf" --no-keeper-files
check "nginx -t accepts the shipped site" nginx -t -q -p "$WORK/nginx" -c "$WORK/nginx/site-test.conf" -e "$WORK/nginx-error.log"

# Start the pool the way keeper.socket + keeper.service do: the sockets are made first and the
# pool inherits them (systemd-socket-activate passes them by LISTEN_FDS, in keeper.socket's order:
# the pool's socket, then the retry socket; given -E, the environment), as the keeper user.
mkdir -p "$WORK/run" && chown keeper: "$WORK/run"
setpriv --reuid=keeper --regid=keeper --init-groups -- env KEEPER_CONFIG=/etc/keeper/keeper.conf \
  KEEPER_DATABASE_URL="$KEEPER_TEST_WORKER_DATABASE_URL" KEEPER_WORKERS=2 KEEPER_SECRET_KEY_FILE="$KEEPER_SECRET_KEY_FILE" \
  systemd-socket-activate -E KEEPER_CONFIG -E KEEPER_DATABASE_URL -E KEEPER_WORKERS -E KEEPER_SECRET_KEY_FILE -l "$WORK/run/keeper.sock" -l "$WORK/run/keeper-retry.sock" /usr/sbin/keeper-fcgi >"$WORK/pool.log" 2>&1 &
activator=$!
for _ in $(seq 50); do [ -S "$WORK/run/keeper.sock" ] && break; sleep 0.1; done
# nginx with the installed files: the shipped upstream (the pool's socket and the retry socket as
# its backup) at this test's paths.
$NGINX_CONF shipped --nginx-dir /etc/keeper/nginx keeper-upstream.conf "$WORK/nginx/keeper-upstream.conf" \
  unix:/run/keeper/ "unix:$WORK/run/"
cat >"$WORK/nginx/http.conf" <<NGINX
    include $WORK/nginx/keeper-upstream.conf;
    server { listen 127.0.0.1:$PORT; include /etc/keeper/nginx/keeper-errors.conf; include /etc/keeper/nginx/keeper-locations.conf; }
NGINX
$NGINX_CONF conf "$WORK/nginx/nginx.conf" --nginx-dir /etc/keeper/nginx --prefix "$WORK/nginx" --user keeper \
  --error-log "$WORK/nginx-error.log" --access-log "$WORK/access.log keeper" --http-file "$WORK/nginx/http.conf"
chown keeper "$WORK/nginx/tmp"
nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -e "$WORK/nginx-error.log"
answer=$(curl -sS "http://127.0.0.1:$PORT/AccountApi.asmx/CheckSessionEx?sessionId=package-test&appId=x")
check "an operation answers through nginx and the installed pool (got: $answer)" \
  test "$answer" = $'<?xml version="1.0" encoding="utf-8"?>\r\n<int xmlns="http://tempuri.org/">2</int>'
# The supervisor writes the workers' log records out every few milliseconds.
logged() { for _ in $(seq 50); do grep -q "$1" "$WORK/pool.log" && return 0; sleep 0.1; done; return 1; }
check "the pool logged the request" logged "operation=CheckSessionEx transport=get outcome=result=2"
[ "$failed" -eq 0 ] || { echo "--- pool log" >&2; cat "$WORK/pool.log" >&2; echo "--- nginx error log" >&2; tail -5 "$WORK/nginx-error.log" >&2; }
check "the package purges" dpkg --purge keeper

# --- keeper-front: the front's own package (docs/scaling.md, "The front"), on a host without keeper --
(cmake -S "$SOURCE/packaging/front" -B "$WORK/front-build" >/dev/null && cd "$WORK/front-build" && cpack -G DEB >/dev/null) ||
  { echo "FAIL: keeper-front did not build" >&2; failed=$((failed + 1)); }
front_deb=$(ls "$WORK"/front-build/package/keeper-front_*_all.deb 2>/dev/null)
check "keeper-front needs neither keeper nor PostgreSQL" sh -c "! dpkg-deb -f '$front_deb' Depends | grep -qE 'keeper|postgres'"
check "keeper-front installs" dpkg -i "$front_deb"
for f in /etc/keeper/nginx/keeper-front-locations.conf /etc/keeper/nginx/keeper-errors.conf /etc/keeper/nginx/keeper-request-id.conf \
         /etc/keeper/nginx/keeper-limits.conf /etc/keeper/nginx/keeper-log-format.conf /etc/keeper/nginx/keeper-tls.conf \
         /etc/nginx/sites-available/keeper-front /usr/share/keeper-front/nginx/keeper-front-hosts.conf \
         /usr/share/keeper-front/scripts/make-certs; do
  check "keeper-front installed $f" test -e "$f"
done
check "keeper-front installed no worker host's file" sh -c '! ls /etc/keeper/nginx/keeper-locations.conf /usr/sbin/keeper-fcgi 2>/dev/null'
# Its site and hosts as installed, with certificates from its make-certs in place of
# /etc/keeper/tier/ and this test's directory for conf.d (docs/scaling.md, "The front").
front_test() {
  local tier=$WORK/tier
  /usr/share/keeper-front/scripts/make-certs "$tier" ca >/dev/null &&
    /usr/share/keeper-front/scripts/make-certs "$tier" front front.keeper.internal >/dev/null || return 1
  $NGINX_CONF shipped --nginx-dir /etc/keeper/nginx keeper-front-locations.conf \
    "$WORK/nginx/keeper-front-locations.conf" /etc/keeper/tier/ "$tier/" || return 1
  $NGINX_CONF shipped --nginx-dir /etc/nginx/sites-available keeper-front "$WORK/nginx/front-site.conf" \
    /etc/keeper/nginx/keeper-front-locations.conf "$WORK/nginx/keeper-front-locations.conf" || return 1
  printf '    include %s;\n    include %s;\n' /usr/share/keeper-front/nginx/keeper-front-hosts.conf \
    "$WORK/nginx/front-site.conf" >"$WORK/nginx/front-http.conf"
  $NGINX_CONF conf "$WORK/nginx/front-test.conf" --prefix "$WORK/nginx/front" --error-log "$WORK/nginx-error.log" \
    --http-file "$WORK/nginx/front-http.conf" --no-keeper-files || return 1
  nginx -t -q -p "$WORK/nginx" -c "$WORK/nginx/front-test.conf" -e "$WORK/nginx-error.log"
}
check "nginx -t accepts the front as keeper-front installs it" front_test
refuses_keeper() { ! dpkg -i "$deb" >/dev/null 2>&1 && ! dpkg-query -W -f='${Status}' keeper 2>/dev/null | grep -q "ok installed"; }
check "keeper does not install beside keeper-front (the same nginx files)" refuses_keeper
check "keeper-front purges" dpkg --purge keeper-front
check "nothing of keeper-front is left" sh -c '! ls -d /etc/keeper /etc/nginx/sites-available/keeper-front /usr/share/keeper-front 2>/dev/null'

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
