#!/usr/bin/env bash
# The deploy tier: keeper's Debian package as an operator runs it, on Debian 12 booted with systemd
# as PID 1 in a container (systemd-nspawn over a cached image, tests/harness/image.sh). The container
# has a network namespace of its own, so the shipped site keeps its ports 80 and 443 and its
# PostgreSQL 5432 without meeting the host's. The commands are docs/operations.md's own: each block
# marked "<!-- deploy: NAME -->" there is run as root in the container, as written.
#
# Scenarios, in order: fresh install; upgrade under load to a newer package with one more
# migration, and an older package refused over the newer schema; key rotation under load; a reload
# with a bad configuration; the maintenance timer and a failed maintenance; a reboot; backups on
# one host and a restore to a point in time; purge, after which the backups go on; a lost key
# (installed again over the database, with a new key file).
# Needs root, systemd-nspawn and debootstrap (scripts/test installs them); run through scripts/test.
set -uo pipefail
: "${KEEPER_TEST_BUILD_DIR:?run through scripts/test}" "${KEEPER_TEST_SOURCE_DIR:?run through scripts/test}"
SRC=$(cd "$KEEPER_TEST_SOURCE_DIR" && pwd)  # absolute: the tiers change folder (docs run them with .)
HERE=$SRC/tests/deploy
DOC=$SRC/docs/operations.md
WORK=$(mktemp -d /var/tmp/keeper-deploy.XXXXXX)
SECRET=deploy-secret-alice
passed=0 failed=0

# --- the container -------------------------------------------------------------------------------
source "$HERE/../harness/containers.sh"
unit_property() { in_ct systemctl show "$1" -p "$2" --value; }
in_ct() { in_host main "$@"; }
boot() { ct_boot main --private-network; }
wait_container_gone() { ct_wait_gone main; }
cleanup() {
  [ -n "${CT_LEADER[main]:-}" ] && in_ct touch /root/load.stop 2>/dev/null
  containers_cleanup
  rm -rf "$WORK"
}
trap cleanup EXIT
trap "exit 1" INT TERM  # the EXIT trap runs on a signal too: no host is left running
run_doc() { run_doc_on main "$DOC" "$@"; }  # run_doc NAME DIR [stdin file]: docs/operations.md's block

prints_json_field() {  # prints_json_field JSON FIELD VALUE: the object has FIELD = VALUE
  python3 -c 'import json, sys; o = json.loads(sys.argv[1]); sys.exit(o.get(sys.argv[2]) != sys.argv[3])' "$1" "$2" "$3" ||
    { echo "got: $1"; return 1; }
}
# What a command in the container prints: exactly WANT (carriage returns aside), or a line
# holding TEXT, or one matching the extended regular expression RE.
prints() { local want=$1 got; shift; got=$(in_ct "$@" | tr -d '\r'); [ "$got" = "$want" ] || { echo "got: $got"; return 1; }; }
prints_text() { local text=$1 got; shift; got=$(in_ct "$@"); grep -qF -- "$text" <<<"$got" || { echo "$got" | tail -n 20; return 1; }; }
prints_match() { local re=$1 got; shift; got=$(in_ct "$@"); grep -qE -- "$re" <<<"$got" || { echo "$got" | tail -n 20; return 1; }; }

# --- calls through the shipped site ----------------------------------------------------------------
auth_hash() { printf '%s:%s:%s' "$1" "$2" "$3" | tr '[:upper:]' '[:lower:]' | md5sum | cut -c1-32; }
authenticate() {  # authenticate LOGIN SECRET SESSION: result 0 over HTTPS
  local answer
  answer=$(in_ct curl -sk "https://127.0.0.1/SimpleAuthApi.asmx/Authenticate?sessionId=$3&login=$1&authHash=$(auth_hash "$1" "$2" "$3")")
  grep -q '>0</int>' <<<"$answer" || { echo "Authenticate $1: $answer"; return 1; }
}
serves() { authenticate alice "$SECRET" "check-$RANDOM$RANDOM"; }
load_pids=()
load_start() {  # load_start NAME: two writers in the container
  in_ct rm -f /root/load.stop "/root/$1.out"
  load_pids=()
  for _ in 1 2; do in_ct /root/load.sh alice "$SECRET" "$1" >/dev/null 2>&1 & load_pids+=($!); done
  sleep 2
}
load_stop() {  # load_stop NAME: stops the writers; sets calls and fails
  sleep 2
  in_ct touch /root/load.stop
  wait "${load_pids[@]}"
  read -r calls fails < <(in_ct awk '{ n++ } $1 == "fail" { f++ } END { print n + 0, f + 0 }' "/root/$1.out")
}
no_failed_calls() {  # no_failed_calls NAME CALLS FAILED
  [ "$2" -gt 0 ] && [ "$3" -eq 0 ] || { echo "$2 calls, $3 failed:"; in_ct grep -m 5 '^fail' "/root/$1.out"; return 1; }
}
schema_version() { in_ct runuser -u keeper-admin -- keeperctl status 2>/dev/null | awk '$1 == "applied" { v = $2 + 0 } END { print v + 0 }'; }

# --- the packages ------------------------------------------------------------------------------------
t=$(now)
IMAGE=$("$HERE/../harness/image.sh") || { echo "0 passed, 1 failed (no image)"; exit 1; }
figure "image: $(since "$t") s to have it ($(cat "$(dirname "$IMAGE")/size"))"
t=$(now)
package "$KEEPER_TEST_BUILD_DIR" "$WORK/pkg-current" || { echo "0 passed, 1 failed (cpack)"; exit 1; }
next_package "$WORK/pkg-next" >"$WORK/next-build.log" 2>&1 ||
  { tail -n 30 "$WORK/next-build.log"; echo "0 passed, 1 failed (the newer package)"; exit 1; }
figure "packages: $(since "$t") s to build both"

ct_create main "$IMAGE" || { echo "0 passed, 1 failed (overlay mount)"; exit 1; }
ROOT=$(ct_root main)
mkdir -p "$ROOT/root/current" "$ROOT/root/next"
cp "$WORK"/pkg-current/keeper_*.deb "$ROOT/root/current/"
cp "$WORK"/pkg-next/keeper_*.deb "$ROOT/root/next/"
install -m 755 "$HERE/load.sh" "$ROOT/root/load.sh"
# The container's network is its own loopback: apt fetches what keeper depends on now, over the
# host's network, and installs it from its cache in the container.
t=$(now)
ct_prefetch main 'apt-get update -qq && cd /root/current && apt-get install -y -qq --download-only ./keeper_*.deb curl man-db pgbackrest' >"$WORK/prefetch.log" 2>&1 ||
  { tail -n 20 "$WORK/prefetch.log"; echo "0 passed, 1 failed (prefetch)"; exit 1; }
figure "prefetch: $(since "$t") s"

# --- fresh install ------------------------------------------------------------------------------------
t=$(now)
boot
figure "boot: $(since "$t") s"
check "the container booted with systemd as PID 1" test "$(in_ct cat /proc/1/comm)" = systemd
t=$(now)
check "install: apt-get install ./keeper_*.deb (operations.md) pulls its Depends" run_doc install /root/current
figure "install: $(since "$t") s"
t=$(now)
check "database setup on an empty PostgreSQL 15 (operations.md)" run_doc database /root
check "database logins on this host (operations.md)" run_doc database-logins /root
check "configuration (operations.md)" run_doc configure /root
check "the public origin (operations.md)" run_doc configure-origin /root
check "nginx site enabled (operations.md)" run_doc nginx /root
nginx_has_room() {  # the documented limits hold in the running nginx's workers, not only in its file
  local config limits
  # Read whole, then searched: grep -q stopping at the first match would cut nginx -T off, a
  # failure under pipefail.
  config=$(in_ct nginx -T 2>/dev/null)
  grep -qE '^\s*worker_connections\s+8192;' <<<"$config" || { echo "worker_connections not raised"; return 1; }
  for _ in $(seq 50); do  # the reload's new workers replace the old ones
    limits=$(in_ct sh -c 'for pid in $(ps -eo pid=,args= | awk "/nginx: worker process\$/ {print \$1}"); do
      grep "^Max open files" /proc/$pid/limits; done')
    [ -n "$limits" ] && ! grep -qv 16384 <<<"$limits" && return 0
    sleep 0.1
  done
  echo "nginx's workers' open-file limits: ${limits:-no worker found}"
  return 1
}
check "nginx has room for 2048 clients and more: worker_connections and its workers' files raised (operations.md)" nginx_has_room
check "start (operations.md)" run_doc start /root
printf '%s' "$SECRET" >"$ROOT/root/alice.secret"
check "provision a login (operations.md)" run_doc provision /root /dev/stdin <"$ROOT/root/alice.secret"
figure "setup: $(since "$t") s from the database to a provisioned login"
check "the documented checks run (operations.md)" run_doc check /root
check "/health answers ok over plain HTTP on this host" prints ok curl -s http://127.0.0.1/health
check "keeper's nginx logs are 0640 www-data:adm, as Debian's nginx makes its own" \
  prints "640 www-data adm 640 www-data adm" sh -c 'echo $(stat -c "%a %U %G" /var/log/nginx/keeper-access.log /var/log/nginx/keeper-error.log)'
status_of() { in_ct curl -s -o /dev/null -w '%{http_code}' "$@"; }
live_not_ready() {
  local got; got="$(status_of http://127.0.0.1/live) $(status_of http://127.0.0.1/ready)"
  [ "$got" = "200 503" ] || { echo "got $got"; return 1; }
}
check "/live and /ready answer 200 over plain HTTP, GET and HEAD" \
  test "$(status_of http://127.0.0.1/live) $(status_of -I http://127.0.0.1/live) $(status_of http://127.0.0.1/ready) $(status_of -I http://127.0.0.1/ready)" = "200 200 200 200"
check "GetUtcNow answers over HTTPS through the shipped site" prints_text '<dateTime' curl -sk https://127.0.0.1/GlobalApi.asmx/GetUtcNow
origin_address() {
  local want; want="<soap:address location=\"https://$(in_ct sh -c 'hostname -f 2>/dev/null || hostname')/GlobalApi.asmx\" />"
  prints_text "$want" curl -sk -H "Host: evil.example" "https://127.0.0.1/GlobalApi.asmx?wsdl"
}
check "the WSDL's address is the configured origin, whatever Host the request names" origin_address
check "Authenticate of the provisioned login answers 0" serves
check "/metrics counts the calls" prints_text 'keeper_requests_total{group="SimpleAuthApi",operation="Authenticate"' \
  curl -sk https://127.0.0.1/metrics
check "no unit failed" prints "" systemctl --failed --no-legend
check "man keeper-fcgi opens (operations.md installs man-db)" prints_text "keeper-fcgi" sh -c 'man keeper-fcgi | head -n 5'
score=$(in_ct systemd-analyze security keeper.service 2>&1 | awk '/Overall exposure level/ { print $(NF-2) }')
figure "systemd-analyze security keeper.service under a booted systemd: ${score:-none}"
check "operations.md states that score (${score:-none})" grep -qF "rates it ${score:-none}, \"OK\", on Debian 12" "$DOC"

# --- upgrade under load ---------------------------------------------------------------------------
before=$(schema_version)
load_start upgrade
t=$(now)
upgrade_started=$t
check "upgrade: apt-get install ./keeper_*.deb of the newer package (operations.md)" run_doc upgrade /root/next
figure "upgrade: $(since "$t") s for the whole install"
load_stop upgrade
figure "upgrade: $calls calls during it, $fails failed"
check "no call failed during the upgrade" no_failed_calls upgrade "$calls" "$fails"
check "the newer package is installed" prints "$NEXT_VERSION" dpkg-query -W -f='${Version}' keeper
check "the migration was applied (schema $before -> 9000)" test "$(schema_version)" = 9000
check "keeper-migrate's journal shows the migration" prints_text 9000_deploy_upgrade_check journalctl -u keeper-migrate --no-pager
# The seconds of each step of the upgrade, from the container's journal: each run of the migration
# unit (the postinst's, while the old workers serve, and the restart's), and the pool's restart.
upgrade_steps() {
  in_ct journalctl -o short-unix --no-pager --since "@${1%.*}" -u keeper-migrate -u keeper | awk '
    /Starting keeper-migrate/ { m = $1 } /Finished keeper-migrate/ && m { printf "migrate %.2f s; ", $1 - m; m = 0 }
    /Stopping keeper.service/ { p = $1 } /Started keeper.service/ && p { printf "pool restart %.2f s; ", $1 - p; p = 0 }'
}
figure "upgrade steps: $(upgrade_steps "$upgrade_started")"
in_ct journalctl -o short-unix --no-pager --since "@${upgrade_started%.*}" -u keeper-migrate -u keeper >"$WORK/upgrade-journal.log"
migrated_once() { local n; n=$(grep -c "Finished keeper-migrate" "$WORK/upgrade-journal.log"); [ "$n" = 1 ] || { echo "$n runs"; return 1; }; }
check "the upgrade runs the migration once (the restart skips its second run)" migrated_once
check "the pool serves after the upgrade" serves
downgrade() {
  local out
  out=$(in_ct sh -c 'cd /root/current && apt-get install -y --allow-downgrades ./keeper_*.deb' 2>&1) && { echo "$out"; return 1; }
  grep -q 'restore the database' <<<"$out" || { echo "$out"; return 1; }
}
check "an older package over the newer schema is refused, saying what to do" downgrade
check "after the refusal the newer package is still installed" prints "$NEXT_VERSION:install ok installed" \
  dpkg-query -W -f='${Version}:${Status}' keeper
check "after the refusal the pool still serves" serves

# --- a pending migration that fails: the pool waits, the socket stays -----------------------------
# The state an upgrade leaves when its migration cannot run: the database one migration behind the
# pool. keeper.service must not crash-loop into its start limit and fail keeper.socket with it.
in_ct runuser -u postgres -- psql -d keeper -qc "DROP TABLE deploy_upgrade_check" -c "DELETE FROM schema_migrations WHERE version = 9000" >/dev/null
in_ct mkdir -p /run/systemd/system/keeper-migrate.service.d
in_ct sh -c 'printf "[Service]\nExecStart=\nExecStart=/bin/false\n" >/run/systemd/system/keeper-migrate.service.d/broken.conf'
in_ct systemctl daemon-reload
in_ct systemctl restart keeper >/dev/null 2>&1
sleep 12
check "with its migration failing, keeper-migrate.service is failed" in_ct systemctl is-failed --quiet keeper-migrate
check "the pool waits: keeper.service active, never restarted" test "$(unit_property keeper ActiveState):$(unit_property keeper NRestarts)" = active:0
check "keeper.socket stays active" in_ct systemctl is-active --quiet keeper.socket
check "the pool's journal says what it waits for" prints_text "waiting: database schema is version $before, this keeper needs 9000" \
  journalctl -u keeper --no-pager
# Meanwhile a call is refused at once, never left to hang until nginx's timeout (pool/answer_while_waiting.hpp).
refused_while_waiting() {
  local out
  out=$(in_ct curl -sk -m 3 -D - "https://127.0.0.1/GlobalApi.asmx/GetUtcNow") || { echo "no answer within 3 s"; return 1; }
  grep -q "^HTTP/[0-9.]* 503" <<<"$out" && grep -qi "^retry-after: 1" <<<"$out" && grep -q "not applied" <<<"$out" \
    || { echo "$out"; return 1; }
}
check "while it waits, a call is refused at once: 503, not applied, Retry-After" refused_while_waiting
# A restart into a pool that cannot serve, with a call every 0.1 s meanwhile: when the first "not
# applied" came, and the slowest answer on the way (the old pool's, or the new one's refusal).
# The time since boot in the container, as the unit's monotonic timestamps count it.
uptime_now() { in_ct awk '{ print $1 }' /proc/uptime; }
restart_until_refused() {
  local began out slowest=0 refused started
  began=$(uptime_now)
  in_ct systemctl restart keeper >/dev/null 2>&1 &
  for _ in $(seq 100); do
    out=$(in_ct curl -sk -m 3 -o /dev/null -w '%{http_code} %{time_total}' "https://127.0.0.1/GlobalApi.asmx/GetUtcNow")
    slowest=$(awk -v a="$slowest" -v b="${out#* }" 'BEGIN { print (b > a) ? b : a }')
    [ "${out%% *}" = 503 ] && break
    sleep 0.1
  done
  refused=$(uptime_now)
  wait
  [ "${out%% *}" = 503 ] || { echo "no call refused within 10 s"; return; }
  started=$(unit_property keeper ExecMainStartTimestampMonotonic)
  awk -v b="$began" -v s="$started" -v r="$refused" -v w="$slowest" 'BEGIN {
    printf "the old pool stopped and the new one started %.1f s after systemctl restart began; the first call refused %.1f s after that start; the slowest answer meanwhile %.2f s", s / 1e6 - b, r - s / 1e6, w }'
}
figure "pending migration: $(restart_until_refused)"
in_ct rm -rf /run/systemd/system/keeper-migrate.service.d
in_ct systemctl daemon-reload
t=$(now)
check "once the migration runs (systemctl start keeper-migrate)" in_ct systemctl start keeper-migrate
waits_then_serves() { for _ in $(seq 50); do serves >/dev/null 2>&1 && return 0; sleep 0.2; done; serves; }
waits_then_authenticates() {  # LOGIN SECRET
  for _ in $(seq 50); do authenticate "$1" "$2" "wait-$RANDOM" >/dev/null 2>&1 && return 0; sleep 0.2; done
  authenticate "$1" "$2" "wait-$RANDOM"
}
check "the waiting pool serves, with no restart" waits_then_serves
figure "pending migration: the pool served $(since "$t") s after the migration unit was started"

# --- a typo in keeper.conf, then a restart: the pool answers at once and keeps the socket --------
# A restart checks nothing first (a reload does): keeper-fcgi must not exit into the start limit.
in_ct cp /etc/keeper/keeper.conf /root/keeper.conf.good
in_ct sh -c 'echo "therads = 4" >>/etc/keeper/keeper.conf'
figure "typo: $(restart_until_refused)"
sleep 1
check "with a typo in keeper.conf, keeper.service stays active, never restarted" \
  test "$(unit_property keeper ActiveState):$(unit_property keeper NRestarts)" = active:0
check "keeper.socket stays active" in_ct systemctl is-active --quiet keeper.socket
check "meanwhile a call is refused at once: 503, not applied, Retry-After" refused_while_waiting
check "the pool's journal names what is wrong" prints_text "therads" journalctl -u keeper --no-pager -n 50
in_ct cp /root/keeper.conf.good /etc/keeper/keeper.conf
t=$(now)
check "once the file is right again the pool serves, with no restart" waits_then_serves
figure "typo: the pool served $(since "$t") s after the file was fixed"

# --- PostgreSQL down when the pool starts, a migration pending: keeper-migrate runs again by itself
in_ct runuser -u postgres -- psql -d keeper -qc "DROP TABLE deploy_upgrade_check" -c "DELETE FROM schema_migrations WHERE version = 9000" >/dev/null
in_ct systemctl stop postgresql
in_ct systemctl restart keeper >/dev/null 2>&1
sleep 2
check "while the pool waits for the database, /live answers 200 and /ready 503" live_not_ready
check "with PostgreSQL down, keeper-migrate waits to run again, not failed" \
  test "$(unit_property keeper-migrate ActiveState):$(unit_property keeper-migrate SubState)" = activating:auto-restart
check "keeper.socket stays active" in_ct systemctl is-active --quiet keeper.socket
t=$(now)
in_ct systemctl start postgresql
migrated() { for _ in $(seq 60); do [ "$(schema_version)" = 9000 ] && return 0; sleep 0.5; done; echo "schema $(schema_version)"; return 1; }
check "once PostgreSQL is back, keeper-migrate runs by itself and applies the migration" migrated
check "the pool serves" waits_then_serves
figure "database back at boot: migrated and serving $(since "$t") s after PostgreSQL started"

# --- liveness and readiness while PostgreSQL is away from a serving pool ---------------------------
in_ct systemctl stop postgresql
# postgresql.service passes the stop on to the cluster's unit (PartOf): wait for the server to go.
for _ in $(seq 100); do in_ct pg_isready -q || break; sleep 0.1; done
check "with PostgreSQL down, /live answers 200 and /ready 503" live_not_ready
check "/ready says why" prints "not ready: database unreachable" curl -s http://127.0.0.1/ready
in_ct systemctl start postgresql
t=$(now)
ready_again() { for _ in $(seq 200); do [ "$(status_of http://127.0.0.1/ready)" = 200 ] && return 0; sleep 0.05; done; return 1; }
check "/ready answers 200 again once PostgreSQL is back" ready_again
figure "ready again $(since "$t") s after PostgreSQL started"

# --- key rotation under load ----------------------------------------------------------------------
old_key=$(in_ct awk 'NR == 1 { print $1 }' /etc/keeper/secret.keys)
load_start rotate
t=$(now)
check "key rotation (operations.md)" run_doc rotate /root
figure "rotation: $(since "$t") s"
load_stop rotate
figure "rotation: $calls calls during it, $fails failed"
check "no Authenticate failed before, during and after the rotation" no_failed_calls rotate "$calls" "$fails"
new_key=$(in_ct awk 'NR == 1 { print $1 }' /etc/keeper/secret.keys)
check "the key file has a new first key ($old_key -> $new_key)" test "$new_key" != "$old_key"
sealed_with_new() {
  local n; n=$(in_ct runuser -u postgres -- psql -d keeper -tAc "SELECT count(*) FROM logins WHERE shared_secret NOT LIKE 'sealed:v1:$new_key:%'")
  [ "$n" = 0 ] || { echo "$n logins not sealed with $new_key"; return 1; }
}
check "every login is sealed with the new key" sealed_with_new
printf 'deploy-secret-bob' | in_ct runuser -u keeper-admin -- keeperctl add-login bob - >/dev/null
check "a login added after the rotation authenticates" authenticate bob deploy-secret-bob "bob-$RANDOM"
check "a login resealed by the rotation authenticates" serves
# keeperctl as root: peer authentication refuses it, and it says how to run it instead of
# retrying an outage that is not there (exit 1, not 75).
keeperctl_as_root() {
  local out status=0
  out=$(in_ct keeperctl list logins 2>&1) || status=$?
  [ "$status" = 1 ] && grep -q "runuser -u keeper-admin -- keeperctl" <<<"$out" || { echo "exit $status: $out"; return 1; }
}
check "keeperctl run as root says to run it as keeper-admin" keeperctl_as_root
# The workers' user cannot become anyone else (operations.md, "Configure"): PostgreSQL maps it to
# keeper_worker alone, and keeperctl's connection strings are out of its reach.
workers_user_is_only_the_worker() {
  local role
  prints keeper_worker runuser -u keeper -- psql -d keeper -U keeper_worker -tAc "SELECT current_user" || return 1
  for role in keeper keeper_maintain keeper_provision postgres; do
    if in_ct runuser -u keeper -- psql -d keeper -U "$role" -tAc "SELECT 1" >/dev/null 2>&1; then
      echo "the workers' user connected as $role"; return 1
    fi
  done
}
check "as the workers' user, PostgreSQL admits keeper_worker and no other role" workers_user_is_only_the_worker
fails() { ! in_ct "$@" >/dev/null 2>&1; }
check "admin.conf is keeper-admin's alone (0600)" prints "600 keeper-admin" stat -c "%a %U" /etc/keeper/admin.conf
check "as the workers' user, admin.conf cannot be read" fails runuser -u keeper -- cat /etc/keeper/admin.conf
check "as the workers' user, keeperctl stops at admin.conf" \
  prints_text "cannot read config file /etc/keeper/admin.conf" sh -c 'runuser -u keeper -- keeperctl list logins 2>&1'
check "as keeper-admin, keeperctl serves" prints_text alice runuser -u keeper-admin -- keeperctl list logins
short_secret_refused() {
  local out status=0
  out=$(printf 'short-secret' | in_ct runuser -u keeper-admin -- keeperctl add-login carol - 2>&1) || status=$?
  [ "$status" = 2 ] && grep -q "at least 16 characters" <<<"$out" || { echo "exit $status: $out"; return 1; }
}
check "keeperctl refuses a shared secret shorter than 16 characters" short_secret_refused

# --- a reload with a bad configuration --------------------------------------------------------------
pid_before=$(in_ct systemctl show keeper -P MainPID)
in_ct cp /etc/keeper/keeper.conf /root/keeper.conf.good
in_ct sh -c 'echo "wokers = 3" >>/etc/keeper/keeper.conf'
check_refuses() {
  local out; out=$(in_ct runuser -u keeper -- keeper-fcgi --check-config 2>&1) && { echo "$out"; return 1; }
  grep -q "unknown key 'wokers'" <<<"$out" || { echo "$out"; return 1; }
}
check "keeper-fcgi --check-config names the bad key" check_refuses
reload_refused() { ! in_ct systemctl reload keeper; }
check "systemctl reload keeper is refused" reload_refused
check "the pool kept its process" test "$(in_ct systemctl show keeper -P MainPID)" = "$pid_before"
check "the old workers keep serving" serves
check "keeper.service is still active" in_ct systemctl is-active --quiet keeper
in_ct cp /root/keeper.conf.good /etc/keeper/keeper.conf
check "with the configuration fixed, keeper-fcgi --check-config passes" in_ct runuser -u keeper -- keeper-fcgi --check-config
check "with the configuration fixed, the reload succeeds" in_ct systemctl reload keeper
check "and the new workers serve" serves

# --- JSON log lines ------------------------------------------------------------------------------------
in_ct sh -c 'echo "log_format = json" >>/etc/keeper/keeper.conf'
in_ct systemctl reload keeper
request_id_of_a_call() { in_ct curl -sk -D - -o /dev/null https://127.0.0.1/GlobalApi.asmx/GetUtcNow | tr -d '\r' |
  awk -F': ' 'tolower($1) == "x-request-id" { print $2 }'; }
journal_json() {  # journal_json TEXT: the newest line of keeper's journal holding TEXT, parsed as JSON
  local line=""
  for _ in $(seq 25); do
    line=$(in_ct journalctl -u keeper -o cat --no-pager | grep -F -- "$1" | tail -n 1)
    [ -n "$line" ] && break
    sleep 0.2
  done
  python3 -c 'import json, sys; print(json.dumps(json.loads(sys.argv[1]), sort_keys=True))' "$line" || { echo "not JSON: $line"; return 1; }
}
# The new workers write JSON; the old ones finish what nginx still sends on their kept connections
# (nginx closes those within keepalive_timeout), in text.
json_call_line() {
  local rid line
  for _ in $(seq 40); do
    rid=$(request_id_of_a_call)
    sleep 0.1
    line=$(in_ct journalctl -u keeper -o cat --no-pager | grep -F -- "$rid" | tail -n 1)
    [ "${line:0:1}" = "{" ] && { prints_json_field "$line" operation GetUtcNow; return; }
    sleep 0.2
  done
  echo "no call logged as JSON; last: $line"; return 1
}
check "with log_format = json, a call's line is a JSON object" json_call_line
check "and the pool's own lines are too" prints_json_field "$(journal_json '"configuration reloaded')" source pool
in_ct cp /root/keeper.conf.good /etc/keeper/keeper.conf
in_ct systemctl reload keeper

# --- maintenance ------------------------------------------------------------------------------------
check "keeper-maintain.timer is active with a next run" prints_text keeper-maintain.service systemctl list-timers keeper-maintain.timer --no-legend
# A month far past retention, as a long-running database has, for maintain to drop.
in_ct runuser -u keeper-admin -- psql -d keeper -U keeper_maintain -qc \
  "SELECT partman.create_partition_time('public.audit_log', ARRAY['2020-01-01 00:00+00'::timestamptz])" >/dev/null 2>&1
# And a row for a month with no partition yet, which lands in the default partition.
in_ct runuser -u postgres -- psql -d keeper -qc \
  "INSERT INTO audit_log (at, operation, result, request_id) VALUES ('2031-06-01 00:00+00', 'deploy-test', 0, 'deploy-default-row')" >/dev/null
# The shipped timer, its calendar moved (a runtime drop-in) to a second from now: it starts the
# shipped service.
in_ct mkdir -p /run/systemd/system/keeper-maintain.timer.d
in_ct sh -c 'printf "[Timer]\nOnCalendar=\nRandomizedDelaySec=0\nOnActiveSec=1s\n" >/run/systemd/system/keeper-maintain.timer.d/now.conf'
in_ct systemctl daemon-reload
in_ct systemctl restart keeper-maintain.timer
timer_ran_maintain() {
  for _ in $(seq 100); do
    [ "$(unit_property keeper-maintain.service Result):$(unit_property keeper-maintain.service ActiveState)" = success:inactive ] &&
      [ "$(unit_property keeper-maintain.service ExecMainExitTimestampMonotonic)" != 0 ] && return 0
    sleep 0.2
  done
  in_ct systemctl status keeper-maintain.service keeper-maintain.timer --no-pager; return 1
}
check "keeper-maintain.timer starts keeper-maintain.service, which succeeds" timer_ran_maintain
in_ct rm -rf /run/systemd/system/keeper-maintain.timer.d
in_ct systemctl daemon-reload
in_ct systemctl restart keeper-maintain.timer
check "its journal shows partitions made and dropped" prints_match 'audit_log: .*created .*dropped .*2020' journalctl -u keeper-maintain --no-pager
# node_exporter's textfile collector (its Debian package) serves how the run went.
exported() { in_ct curl -s http://127.0.0.1:9100/metrics | grep -E '^keeper_(maintain|history)_'; }
exports() { grep -q "$1" <<<"$(exported)"; }  # read whole: grep -q may stop early, and pipefail would fail it
check "node_exporter serves the run's success" exports '^keeper_maintain_last_run_success 1$'
check "node_exporter serves the rows found in each default partition" exports '^keeper_history_default_partition_rows{table="audit_log"} 1$'
default_alert() { exported >"$WORK/after-run.prom" &&
                  "$HERE/alert_fires.py" "$SRC/packaging/prometheus/keeper-alerts.yml" KeeperHistoryInDefaultPartition \
                    'keeper_history_default_partition_rows{table="audit_log"}' <"$WORK/after-run.prom"; }
check "and the shipped alert KeeperHistoryInDefaultPartition fires on it" default_alert
in_ct mkdir -p /run/systemd/system/keeper-maintain.service.d
in_ct sh -c 'printf "[Service]\nEnvironment=KEEPER_MAINTAIN_DATABASE_URL=dbname=no_such_database\n" >/run/systemd/system/keeper-maintain.service.d/broken.conf'
in_ct systemctl daemon-reload
in_ct systemctl start keeper-maintain.service >/dev/null 2>&1
check "a failed maintenance leaves the unit failed" in_ct systemctl is-failed --quiet keeper-maintain.service
failed_alert() { exported >"$WORK/after-failure.prom" && grep -qx 'keeper_maintain_last_run_success 0' "$WORK/after-failure.prom" &&
                 "$HERE/alert_fires.py" "$SRC/packaging/prometheus/keeper-alerts.yml" KeeperMaintainFailed \
                   keeper_maintain_last_run_success <"$WORK/after-failure.prom"; }
check "and the shipped alert KeeperMaintainFailed fires on what node_exporter serves" failed_alert
in_ct rm -rf /run/systemd/system/keeper-maintain.service.d
in_ct systemctl daemon-reload
in_ct systemctl reset-failed keeper-maintain.service

# --- reboot -------------------------------------------------------------------------------------------
t=$(now)
in_ct systemctl reboot >/dev/null 2>&1
wait_container_gone
boot
figure "reboot: $(since "$t") s until the container runs again"
check "after a reboot keeper.socket is active" in_ct systemctl is-active --quiet keeper.socket
check "after a reboot keeper serves by itself" serves
check "after a reboot keeper.service is active" in_ct systemctl is-active --quiet keeper.service

# --- backups on this one host, and a restore to a moment between two writes ------------------------
t=$(now)
# The first full backup runs as its unit: should it fail, its journal says why.
backup_setup() { run_doc backup-setup /root || { in_ct journalctl -u keeper-backup@full --no-pager -n 25; return 1; }; }
check "backups set up, a first full backup (operations.md)" backup_setup
figure "backups: $(since "$t") s to set up and make the first full backup"
check "the repository holds the full backup" prints_text "full backup" runuser -u postgres -- pgbackrest --stanza=keeper info
check "the repository is encrypted" prints_text "cipher: aes-256-cbc" runuser -u postgres -- pgbackrest --stanza=keeper info
check "the backup timers are enabled" in_ct systemctl is-enabled --quiet keeper-backup-full.timer keeper-backup-diff.timer
check "node_exporter's directory has the full backup's time" in_ct test -s /var/lib/prometheus/node-exporter/keeper-backup-full.prom
in_ct runuser -u keeper-admin -- keeperctl add-purse alice Z100000000001 >/dev/null
sleep 1
target=$(in_ct date -u '+%Y-%m-%d %H:%M:%S.%6N+00')
sleep 1
in_ct runuser -u keeper-admin -- keeperctl add-purse alice Z100000000002 >/dev/null
check "a differential backup (operations.md)" run_doc backup-diff /root
check "the repository holds it" prints_text "diff backup" runuser -u postgres -- pgbackrest --stanza=keeper info
t=$(now)
DOC_VARIABLE="TARGET=$target" check "restore to $target, between the two writes (operations.md)" run_doc backup-restore /root
figure "restore: $(since "$t") s to a running copy"
check "the restored copy has the first write and lacks the second" prints Z100000000001 runuser -u postgres -- psql -p 5433 \
  -d keeper -tAc "SELECT string_agg(purse, ' ' ORDER BY purse) FROM purses WHERE purse LIKE 'Z10000000000_'"
restored_away() {
  in_ct runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl -D /var/lib/postgresql/15/restored stop -m fast >/dev/null
  in_ct rm -rf /var/lib/postgresql/15/restored
}
restored_away
# A target after the last archived segment (a write a moment ago, no backup since): the restore
# has the live database switch its WAL first, or recovery ends before the target.
in_ct runuser -u keeper-admin -- keeperctl add-purse alice Z100000000003 >/dev/null
sleep 1
target=$(in_ct date -u '+%Y-%m-%d %H:%M:%S.%6N+00')
DOC_VARIABLE="TARGET=$target" check "restore to $target, a moment after the last write (operations.md)" run_doc backup-restore /root
check "the restored copy has every write" prints "Z100000000001 Z100000000002 Z100000000003" runuser -u postgres -- psql -p 5433 \
  -d keeper -tAc "SELECT string_agg(purse, ' ' ORDER BY purse) FROM purses WHERE purse LIKE 'Z10000000000_'"
restored_away
check "the live database has all three" prints "Z100000000001 Z100000000002 Z100000000003" runuser -u postgres -- psql -d keeper -tAc \
  "SELECT string_agg(purse, ' ' ORDER BY purse) FROM purses WHERE purse LIKE 'Z10000000000_'"
check "the pool serves with archiving on" serves

# --- the restored database made the live one, in place -------------------------------------------
in_ct runuser -u keeper-admin -- keeperctl add-purse alice Z100000000004 >/dev/null
sleep 1
target=$(in_ct date -u '+%Y-%m-%d %H:%M:%S.%6N+00')
sleep 1
in_ct runuser -u keeper-admin -- keeperctl add-purse alice Z100000000005 >/dev/null
t=$(now)
DOC_VARIABLE="TARGET=$target" check "restore in place to $target, between two writes (operations.md)" run_doc restore-in-place /root
figure "restore in place: $(since "$t") s until keeper serves again"
check "the live database is the restored one: the fourth write, not the fifth" \
  prints "Z100000000001 Z100000000002 Z100000000003 Z100000000004" runuser -u postgres -- psql -d keeper -tAc \
  "SELECT string_agg(purse, ' ' ORDER BY purse) FROM purses WHERE purse LIKE 'Z10000000000_'"
check "it runs on Debian's port with archiving on" prints "5432 on" runuser -u postgres -- psql -d keeper -tAc \
  "SELECT current_setting('port') || ' ' || current_setting('archive_mode')"
check "its WAL is archived (pgbackrest check)" in_ct runuser -u postgres -- pgbackrest --stanza=keeper check
no_copy_running() { ! in_ct ss -ltnH 'sport = :5433' | grep -q .; }
check "the copy is not left running on 5433" no_copy_running
check "the data before the restore is kept aside" in_ct sh -c 'ls -d /var/lib/postgresql/15/main.before-restore-*'
check "keeper serves after the restore in place" serves
in_ct sh -c 'rm -rf /var/lib/postgresql/15/main.before-restore-*'
in_ct systemctl start keeper-backup@full.service  # the restored database is on a new timeline (operations.md)

# --- purge ---------------------------------------------------------------------------------------------
in_ct dpkg-query -L keeper >"$WORK/package-files"
check "purge (operations.md)" run_doc purge /root
left_behind() {
  local left
  # A directory the package shares with others (/usr/bin) stays; one of keeper's own must go. The
  # backup units "Back up" copied to /etc/systemd/system stay: they are the database's.
  left=$(in_ct sh -c 'for f in "$@"; do if [ -d "$f" ]; then case $f in *keeper*) echo "$f" ;; esac; \
    elif [ -e "$f" ] || [ -L "$f" ]; then echo "$f"; fi; done; \
    ls -d /etc/keeper /run/keeper /var/lib/keeper /etc/nginx/sites-enabled/keeper /var/log/nginx/keeper-* \
      /var/lib/prometheus/node-exporter/keeper-maintain* 2>/dev/null; \
    find /etc/systemd /lib/systemd/system -name "keeper*" ! -name "keeper-backup*" 2>/dev/null' sh $(grep -v '^/\.$' "$WORK/package-files" | grep -v '^/usr$\|^/etc$\|^/lib$') )
  [ -z "$left" ] || { echo "left behind:"; echo "$left"; return 1; }
}
check "nothing of keeper's is left" left_behind
check "the system user stays, as Debian keeps system users" in_ct id keeper
nginx_whole() { in_ct nginx -t -q && in_ct systemctl is-active --quiet nginx; }
check "nginx still passes nginx -t and runs" nginx_whole
kept_from_autoremove() { ! in_ct apt-get -s autoremove | grep -E "^Remv (nginx|postgresql)"; }
check "apt autoremove after the purge keeps nginx and PostgreSQL" kept_from_autoremove
check "the database is untouched" prints 2 runuser -u postgres -- psql -d keeper -tAc 'SELECT count(*) FROM logins'
backup_after_purge() {
  in_ct systemctl start keeper-backup@diff.service || { in_ct journalctl -u keeper-backup@diff --no-pager -n 20; return 1; }
  in_ct systemctl is-enabled --quiet keeper-backup-full.timer keeper-backup-diff.timer
}
check "the backups go on after the purge (operations.md, the purge leaves them)" backup_after_purge
in_ct runuser -u postgres -- psql -d keeper -qc "INSERT INTO purses (purse, login_id) SELECT 'Z100000000006', id FROM logins WHERE login = 'alice'" >/dev/null
sleep 1
target=$(in_ct date -u '+%Y-%m-%d %H:%M:%S.%6N+00')
DOC_VARIABLE="TARGET=$target" check "a restore after the purge, with the tool Back up installed (operations.md)" \
  run_doc backup-restore /root
check "the copy restored after the purge has the last write" prints_text Z100000000006 runuser -u postgres -- psql -p 5433 \
  -d keeper -tAc "SELECT purse FROM purses WHERE purse = 'Z100000000006'"
restored_away

# --- a lost key: keeper installed again over the database, without the old key file ------------------
t=$(now)
check "install again after the purge (operations.md)" run_doc install /root/next
check "configuration again (operations.md)" run_doc configure /root
check "the public origin again (operations.md)" run_doc configure-origin /root
check "nginx site enabled again (operations.md)" run_doc nginx /root
check "start again (operations.md)" run_doc start /root
lost_key=$new_key
made_key=$(in_ct awk 'NR == 1 { print $1 }' /etc/keeper/secret.keys)
check "the new key file's key has an id of its own ($lost_key -> $made_key)" test "$made_key" != "$lost_key"
lost_key_named() {
  local out; out=$(in_ct runuser -u keeper -- keeper-fcgi --check-config 2>&1) && { echo "passed: $out"; return 1; }
  grep -qF "sealed with key $lost_key, which the key file lacks: 2 in logins (alice, bob)" <<<"$out" || { echo "$out"; return 1; }
}
check "keeper-fcgi --check-config names the lost key and the logins sealed with it" lost_key_named
check "meanwhile a call is refused at once: 503, not applied, Retry-After" refused_while_waiting
forget_refused() {
  local out status=0; out=$(in_ct runuser -u keeper-admin -- keeperctl forget-key 2>&1) || status=$?
  [ "$status" = 1 ] && grep -qF "key $lost_key: 2 in logins (alice, bob)" <<<"$out" || { echo "exit $status: $out"; return 1; }
}
check "keeperctl forget-key refuses while alice and bob are sealed with the lost key, naming them" forget_refused
printf 'deploy-secret-alice-2' | in_ct runuser -u keeper-admin -- keeperctl add-login alice - >/dev/null
printf 'deploy-secret-bob-2' | in_ct runuser -u keeper-admin -- keeperctl add-login bob - >/dev/null
check "lost key: forget it and restart (operations.md)" run_doc lost-key /root
check "the pool serves: alice authenticates with her new secret" waits_then_authenticates alice deploy-secret-alice-2
check "secret_keys lists the new key alone" prints "$made_key" runuser -u postgres -- psql -d keeper -tAc "SELECT string_agg(key_id, ' ') FROM secret_keys"
check "no unit failed" prints "" systemctl --failed --no-legend
figure "lost key: $(since "$t") s from the reinstall to serving with new secrets"

[ "$failed" -eq 0 ] || { say "--- keeper's journal"; in_ct journalctl -u keeper -u keeper-migrate -n 40 --no-pager >&2; }
say "--- figures"; cat "$WORK/figures" >&2
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
