#!/usr/bin/env bash
# The deploy tier across hosts: keeper's tiers as an operator builds them from the docs, each host
# Debian 12 booted with systemd as PID 1 (tests/harness/containers.sh) on a network of their own,
# with the machine as the clients and as an intruder on it. The commands are the docs' own
# (blocks marked "<!-- deploy: NAME -->"), run as root on the host they name:
# - the database tier (docs/scaling.md, "Setting it up"): db1 and db2 with PostgreSQL under
#   Patroni, db3 with etcd alone; certificates made on w1 as on an administrator's machine with
#   the package; etcd healthy on three members, a Leader and a Sync Standby, no trust line in
#   pg_hba, a switchover by patronictl with the documented credentials under the worker host;
# - the cluster's backups on a repository host ("Backups of the cluster"): each node's TLS server,
#   the repository's stanza and check, a full backup by its unit, and archiving from the new
#   primary after the switchover;
# - keeper's database on the cluster's leader, and a worker host, w1, whose connection strings
#   name both nodes, made a worker host of the tier ("The worker hosts' tier listener"), and the
#   front with keeper-front ("The front"): calls through the front over HTTPS in three
#   transports, and after the switchover; the front's own check of the host with its
#   certificate; a second worker host, w2, by the runbook "Adding a worker host", after which calls
#   go to both;
# - the worker hosts upgraded one at a time to a newer package (one more migration), then a
#   setting rolled across them, by the runbooks "Upgrading the worker hosts one at a time" and
#   "Rolling a setting across the hosts", while the machine writes through the front on kept
#   connections (tests/deploy/front_load.py): every call answered 0, the migration run once, no
#   call applied twice;
# - the runbooks: a failover (the Leader's host loses its power; writes served again, the host
#   back as the Sync Standby), and a restore to a point in time, first as a copy beside the
#   cluster, then made the cluster (the other node clones it, keeper serves it, a full backup);
# - only the tier listener and loopback listening on the worker hosts; and an intruder served
#   nothing (w1's 443 and 80 closed, its tier listener refusing a peer without the tier's
#   certificate, and pgBackRest's TLS servers refusing another authority, a host they do not
#   admit and a peer without a certificate).
# The docs' example addresses (10.0.x.y) are this network's 10.214.x.y, and their example host
# (db1, etcd1, w1) each host's own name; the front's hosts file is edited for the one worker host,
# then for two, as the docs tell an operator to.
# Needs root, systemd-nspawn, debootstrap and iproute2 (scripts/test installs them).
set -uo pipefail
: "${KEEPER_TEST_BUILD_DIR:?run through scripts/test}" "${KEEPER_TEST_SOURCE_DIR:?run through scripts/test}"
SRC=$(cd "$KEEPER_TEST_SOURCE_DIR" && pwd)  # absolute: the tiers change folder (docs run them with .)
HERE=$SRC/tests/deploy
OPS=$SRC/docs/operations.md
SCALING=$SRC/docs/scaling.md
WORK=$(mktemp -d /var/tmp/keeper-deploy-hosts.XXXXXX)
SECRET=front-secret-alice
BRIDGE=kdhbr
CLIENT=10.214.0.1 FRONT=10.214.0.10 W1=10.214.2.11 W2=10.214.2.12
declare -A ADDRESS=([front]=$FRONT [w1]=$W1 [w2]=$W2 [db1]=10.214.1.11 [db2]=10.214.1.12 [db3]=10.214.1.13 [backup]=10.214.1.20)
HOSTS=(w1 w2 front db1 db2 db3 backup)
DATABASE_PACKAGES="postgresql-15 postgresql-15-partman patroni etcd-server etcd-client pgbackrest"
export DOC_EDIT='s/10\.0\./10.214./g'
passed=0 failed=0
# One run at a time on this machine (the network's names are fixed): a second waits here.
exec 8>/run/keeper-deploy-hosts.lock
flock 8

source "$HERE/../harness/containers.sh"
cleanup() { containers_cleanup; rm -rf "$WORK"; }
trap cleanup EXIT
trap "exit 1" INT TERM  # the EXIT trap runs on a signal too: no host is left running
on_w1() { run_doc_on w1 "$@"; }
on_front() { run_doc_on front "$@"; }

# --- the packages and the hosts ----------------------------------------------------------------
t=$(now)
IMAGE=$("$HERE/../harness/image.sh") || { echo "0 passed, 1 failed (no image)"; exit 1; }
figure "image: $(since "$t") s to have it"
{ package "$KEEPER_TEST_BUILD_DIR" "$WORK/pkg" &&
  cmake -S "$SRC/packaging/front" -B "$WORK/front-build" && (cd "$WORK/front-build" && cpack -G DEB); } \
  >"$WORK/package.log" 2>&1 || { tail -n 20 "$WORK/package.log"; echo "0 passed, 1 failed (packages)"; exit 1; }

names() {  # the names every host resolves (the operator's DNS)
  printf '%s w1.keeper.internal\n%s w2.keeper.internal\n%s front.keeper.internal\n' "$W1" "$W2" "$FRONT"
  printf '%s db1.example etcd1.example\n%s db2.example etcd2.example\n%s etcd3.example\n%s backup.example\n' \
    "${ADDRESS[db1]}" "${ADDRESS[db2]}" "${ADDRESS[db3]}" "${ADDRESS[backup]}"
}
for host in "${HOSTS[@]}"; do
  ct_create "$host" "$IMAGE" || { echo "0 passed, 1 failed (overlay mount)"; exit 1; }
  mkdir -p "$(ct_root "$host")/root/pkg"
  names >>"$(ct_root "$host")/etc/hosts"
done
cp "$WORK"/pkg/keeper_*.deb "$(ct_root w1)/root/pkg/" && cp "$WORK"/pkg/keeper_*.deb "$(ct_root w2)/root/pkg/"
cp "$WORK"/front-build/package/keeper-front_*_all.deb "$(ct_root front)/root/pkg/"
t=$(now)
fetch() { ct_prefetch "$1" "apt-get update -qq && cd /root/pkg && apt-get install -y -qq --download-only $2"; }
{ fetch w1 './keeper_*.deb curl man-db' && fetch w2 './keeper_*.deb curl man-db' && fetch front './keeper-front_*.deb curl' &&
  fetch db1 "$DATABASE_PACKAGES" && fetch db2 "$DATABASE_PACKAGES" && fetch db3 'etcd-server etcd-client' && fetch backup pgbackrest; } \
  >"$WORK/prefetch.log" 2>&1 || { tail -n 20 "$WORK/prefetch.log"; echo "0 passed, 1 failed (prefetch)"; exit 1; }
figure "prefetch: $(since "$t") s"

net_bridge "$BRIDGE" "$CLIENT/16" || { echo "0 passed, 1 failed (bridge)"; exit 1; }
t=$(now)
# A host never boots on the machine's own network: no namespace, no boot.
for host in "${HOSTS[@]}"; do
  net_join "kdh-$host" "$BRIDGE" "${ADDRESS[$host]}/16" || { echo "0 passed, 1 failed (network)"; exit 1; }
  ct_boot "$host" "$NET_ARG" || { echo "0 passed, 1 failed (boot of $host)"; exit 1; }
done
figure "boot: $(since "$t") s for ${#HOSTS[@]} hosts"

# --- the worker host: the package, where the tiers' certificates are made too ------------------
check "w1: install (operations.md)" on_w1 "$OPS" install /root/pkg
check "w2: install (operations.md)" run_doc_on w2 "$OPS" install /root/pkg

# --- the database tier -------------------------------------------------------------------------
# run_as HOST N BLOCK DIR [STDIN]: scaling.md's block on database host N, its example host's
# names (db1, etcd1) its own.
run_as() {
  local host=$1 n=$2
  DOC_EDIT="$DOC_EDIT; s/db1\.\(crt\|key\)/db$n.\1/g; s/^member=etcd1 /member=etcd$n /; s/^member=db1 /member=db$n /" \
    run_doc_on "$host" "$SCALING" "${@:3}"
}
for n in 1 2; do
  check "db$n: the database host's packages (scaling.md)" run_doc_on "db$n" "$SCALING" database-host-packages /root
done
check "db3: the etcd host's packages (scaling.md)" run_doc_on db3 "$SCALING" etcd-host-packages /root
check "the database tier's certificates, made on w1 (scaling.md)" on_w1 "$SCALING" database-tier-certs /root
for n in 1 2 3; do  # the operator's copy: each host's pair, the authority's, the shipped files
  dir=$(ct_root "db$n")/root/tier
  mkdir -p "$dir"
  cp "$(ct_root w1)"/root/keeper-tier/{ca.crt,"db$n.crt","db$n.key"} "$(ct_root w1)/usr/share/keeper/etcd/etcd.default" \
    "$(ct_root w1)/usr/share/keeper/patroni/config.yml" "$dir/"
  check "db$n: its etcd certificate (scaling.md)" run_as "db$n" "$n" etcd-host-certs /root/tier
done
# The three members start together: each waits for a majority before systemd calls it started.
etcd_everywhere() {
  local pids=() n status=0
  for n in 1 2 3; do run_as "db$n" "$n" etcd /root/tier >"$WORK/etcd-$n.out" 2>&1 & pids+=($!); done
  for n in 1 2 3; do wait "${pids[$((n - 1))]}" || { status=1; echo "db$n:"; cat "$WORK/etcd-$n.out"; }; done
  return $status
}
check "db1, db2, db3: etcd from the shipped settings (scaling.md)" etcd_everywhere
three_healthy() { run_as db1 1 etcd-health /root >"$WORK/health.out" 2>&1; cat "$WORK/health.out"; [ "$(grep -c 'is healthy' "$WORK/health.out")" = 3 ]; }
check "etcd: three healthy members (scaling.md)" three_healthy
for n in 1 2; do
  check "db$n: its Patroni certificate (scaling.md)" run_as "db$n" "$n" patroni-host-certs /root/tier
  check "db$n: Patroni's configuration (scaling.md)" run_as "db$n" "$n" patroni-config /root/tier
done
check "db1: Patroni's passwords (scaling.md)" run_as db1 1 patroni-passwords /root
copy_passwords() {  # the operator's copy of the file to the second host, mode and owner kept
  in_host db1 cat /etc/patroni_env.conf |
    in_host db2 sh -c 'umask 077 && cat >/etc/patroni_env.conf && chown postgres:postgres /etc/patroni_env.conf'
}
check "db2: the same passwords, copied" copy_passwords
patroni_says() {  # patroni_says HOST PATTERN: patronictl list shows it within 120 s
  local until=$((SECONDS + 120))
  while [ "$SECONDS" -lt "$until" ]; do
    in_host "$1" timeout 10 patronictl -c /etc/patroni/config.yml list >"$WORK/list.out" 2>&1 &&
      grep -qE -- "$2" "$WORK/list.out" && return 0
    sleep 0.5
  done
  cat "$WORK/list.out"; return 1
}
check "db1: Patroni bootstraps the cluster (scaling.md)" run_as db1 1 patroni /root
check "db1: the Leader, running" patroni_says db1 '\| db1 .*\| Leader +\| running'
check "db2: Patroni clones the first host (scaling.md)" run_as db2 2 patroni /root
check "db2: the Sync Standby" patroni_says db1 '\| db2 .*\| Sync Standby +\| (running|streaming)'
lists_both() { run_doc_on db2 "$SCALING" patroni-list /root | grep -E '\| db[12] ' | grep -cE 'Leader|Sync Standby' | grep -qx 2; }
check "db2: the documented list shows both members (scaling.md)" lists_both
no_trust_line() {  # Patroni wrote pg_hba.conf from the shipped lines alone
  local n got
  for n in 1 2; do
    got=$(in_host "db$n" runuser -u postgres -- psql -d postgres -qAtc \
      "SELECT count(*) FROM pg_hba_file_rules WHERE auth_method = 'trust'" 2>&1)
    [ "$got" = 0 ] || { echo "db$n: $got trust lines"; return 1; }
  done
}
check "db1, db2: no trust line in pg_hba" no_trust_line
# --- the cluster's backups: a repository host -------------------------------------------------------
check "backup: the repository host's package (scaling.md)" run_doc_on backup "$SCALING" backup-host-packages /root
check "the repository host's certificate, made on w1 (scaling.md)" on_w1 "$SCALING" backup-host-certs /root
from_w1=$(ct_root w1)
for n in 1 2; do  # the operator's copy of the node's configuration
  cp "$from_w1/usr/share/keeper/pgbackrest/pgbackrest-patroni.conf" "$from_w1/usr/share/keeper/scripts/pitr-restore" \
    "$(ct_root "db$n")/root/tier/"
  check "db$n: pgBackRest's TLS server (scaling.md)" run_as "db$n" "$n" backup-node /root/tier
done
mkdir -p "$(ct_root backup)/root/tier"  # and of the repository host's files
cp "$from_w1"/root/keeper-tier/{ca.crt,backup.crt,backup.key} "$from_w1"/usr/share/keeper/pgbackrest/pgbackrest-repository.conf \
  "$from_w1"/usr/share/keeper/pgbackrest/keeper-backup@.service "$from_w1"/usr/share/keeper/pgbackrest/keeper-backup-*.timer \
  "$from_w1/usr/share/keeper/scripts/backup-metrics" "$(ct_root backup)/root/tier/"
check "backup: the repository, its stanza, its check and its timers (scaling.md)" \
  run_doc_on backup "$SCALING" backup-repository /root/tier
check "backup: a full backup by its unit, from the primary" in_host backup systemctl start keeper-backup@full
lists_backup() { in_host backup runuser -u postgres -- pgbackrest --stanza=keeper info | grep -E 'full backup: '; }
check "backup: pgbackrest info lists it" lists_backup

# --- the worker host on the cluster, then the tier's site ----------------------------------------
check "db1: keeper's database and roles, as on one host (operations.md)" run_doc_on db1 "$OPS" database /root
check "db1: a password for each role (scaling.md)" run_as db1 1 cluster-passwords /root
mkdir -p "$(ct_root w1)/root/db"  # the operator's copy: the roles' passwords, the tier's authority
cp "$(ct_root db1)/root/keeper-passwords" "$(ct_root w1)/root/keeper-tier/ca.crt" "$(ct_root w1)/root/db/"
check "w1: its connection strings name both nodes (scaling.md)" on_w1 "$SCALING" worker-host-database /root/db
check "w1: nginx (operations.md)" on_w1 "$OPS" nginx /root
check "w1: start (operations.md)" on_w1 "$OPS" start /root
printf '%s' "$SECRET" >"$(ct_root w1)/root/alice.secret"
check "w1: provision a login (operations.md)" on_w1 "$OPS" provision /root /dev/stdin <"$(ct_root w1)/root/alice.secret"
check "the worker tier's certificates, made on w1 (scaling.md)" on_w1 "$SCALING" worker-tier-certs /root
tier=$(ct_root w1)/root/keeper-worker-tier
mkdir -p "$(ct_root front)/root/pkg"
cp "$tier"/ca.crt "$tier"/front.crt "$tier"/front.key "$(ct_root front)/root/pkg/"  # the operator's copy to the front
check "w1: its tier certificate (scaling.md)" on_w1 "$SCALING" worker-host-certs /root/keeper-worker-tier
check "w1: the tier listener as its one site (scaling.md)" on_w1 "$SCALING" worker-host-site /root
only_tier_listens() {  # only_tier_listens HOST ADDRESS: the docs' check, the tier listener and loopback alone on 443, 80, 8443
  local got
  got=$(in_host "$1" ss -Hltn 'sport = 443 or sport = 80 or sport = 8443' | awk '{ print $4 }' | sort | tr '\n' ' ')
  [ "$got" = "$2:8443 127.0.0.1:80 " ] || { echo "listening: $got"; return 1; }
}
check "w1: only its tier listener and loopback listen (scaling.md)" only_tier_listens w1 "$W1"

# --- the front ---------------------------------------------------------------------------------
check "front: keeper-front, its certificate, its hosts file (scaling.md)" on_front "$SCALING" front /root/pkg
# The operator's edit: this network's addresses, and one worker host (w2's upstreams, its address
# and its place in the ring go).
edit_hosts() {
  local file
  file=$(ct_root front)/etc/nginx/conf.d/keeper-front-hosts.conf
  python3 - "$file" <<'EOF'
import re, sys
path = sys.argv[1]
text = open(path).read().replace("10.0.", "10.214.")
text = re.sub(r"upstream (fresh|resend)\.w2\.keeper\.internal \{[^}]*\}\n\n?", "", text)
text = "".join(line for line in text.splitlines(True) if "10.214.2.12" not in line and not line.lstrip().startswith("w2."))
text = text.replace("w1.keeper.internal w2.keeper.internal;", "w1.keeper.internal w1.keeper.internal;")
open(path, "w").write(text)
EOF
  ! grep -n "w2\|10\.0\." "$file"
}
check "front: its hosts file edited for w1 alone" edit_hosts
check "front: its site enabled (scaling.md)" on_front "$SCALING" front-site /root
listens() {  # listens HOST PORT: within 10 s (a reload's new listeners open after systemctl returns)
  for _ in $(seq 100); do
    in_host "$1" ss -Hltn "sport = $2" | grep -q . && return 0
    sleep 0.1
  done
  echo "nothing listens on port $2 of $1"; return 1
}
check "front: listens on 443" listens front 443

# --- calls through the front -------------------------------------------------------------------
eventually() {  # eventually COMMAND...: succeeds within 30 s (a client repeating after Retry-After)
  local until=$((SECONDS + 30))
  until "$@"; do [ "$SECONDS" -lt "$until" ] || return 1; sleep 1; done
}
auth_hash() { printf '%s:%s:%s' "$1" "$2" "$3" | tr '[:upper:]' '[:lower:]' | md5sum | cut -c1-32; }
answers() {  # answers TEXT CURL-ARGS...: the answer holds TEXT
  local text=$1 got
  shift
  got=$(curl -sSk --max-time 15 "$@" 2>&1) && grep -qF -- "$text" <<<"$got" || { echo "got: $got"; return 1; }
}
authenticates() {  # authenticates TAG: an Authenticate through the front (a write), answered 0
  local session="$1-$RANDOM$RANDOM"
  answers '>0</int>' "https://$FRONT/SimpleAuthApi.asmx/Authenticate?sessionId=$session&login=alice&authHash=$(auth_hash alice "$SECRET" "$session")"
}
check "through the front: HTTP GET GetUtcNow" \
  answers '<dateTime' "https://$FRONT/GlobalApi.asmx/GetUtcNow"
check "through the front: Authenticate over HTTP GET (the cluster's primary)" authenticates front
check "through the front: SOAP 1.1 GetUtcNow" answers 'GetUtcNowResult' "https://$FRONT/GlobalApi.asmx" \
  -H 'Content-Type: text/xml; charset=utf-8' -H 'SOAPAction: "http://tempuri.org/GetUtcNow"' \
  --data '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><GetUtcNow xmlns="http://tempuri.org/"/></soap:Body></soap:Envelope>'
check "through the front: JSON GetUtcNow" answers '"d"' "https://$FRONT/GlobalApi.asmx/GetUtcNow" \
  -H 'Content-Type: application/json; charset=utf-8' --data '{}'
front_checks_host() {  # the docs' own check of a host from the front, with the front's certificate
  local line
  line=$(tr '\n' ' ' <"$SCALING" | grep -o 'curl --cert /etc/keeper/tier/front.crt[^`]*' | tr -s ' ' | head -n 1)
  [ -n "$line" ] || { echo "scaling.md has no check of a host from the front"; return 1; }
  in_host front bash -c "$line -sf" | tr -d '\r' | grep -qx 'live'
}
check "front: its check of w1 with its own certificate answers (scaling.md)" front_checks_host
check "w1: its checks answer on its loopback" in_host w1 curl -sf http://127.0.0.1/live

# --- a second worker host, by the runbook "Adding a worker host" -------------------------------
mkdir -p "$(ct_root w2)/root/keeper" "$(ct_root w2)/root/keeper-worker-tier"
cp "$(ct_root w1)"/etc/keeper/{keeper.conf,admin.conf,db-ca.crt,secret.keys} "$(ct_root w2)/root/keeper/"  # the operator's copy
check "w2: w1's configuration and sealing keys (scaling.md)" run_doc_on w2 "$SCALING" add-worker-host /root/keeper
check "w2: nginx (operations.md)" run_doc_on w2 "$OPS" nginx /root
check "w2: start (operations.md)" run_doc_on w2 "$OPS" start /root
says_ok() { [ "$(in_host w2 curl -s http://127.0.0.1/health)" = ok ] || in_host w2 curl -s http://127.0.0.1/health; }
check "w2: its health says ok" eventually says_ok
check "w2: its tier certificate, made on w1 (scaling.md)" on_w1 "$SCALING" add-worker-host-cert /root
cp "$(ct_root w1)"/root/keeper-worker-tier/{ca.crt,w2.crt,w2.key} "$(ct_root w2)/root/keeper-worker-tier/"
DOC_EDIT="$DOC_EDIT; s/w1\.\(crt\|key\)/w2.\1/g" \
  check "w2: its tier certificate (scaling.md)" run_doc_on w2 "$SCALING" worker-host-certs /root/keeper-worker-tier
DOC_EDIT="$DOC_EDIT; s/^address=10\.214\.2\.11 /address=$W2 /" \
  check "w2: the tier listener as its one site (scaling.md)" run_doc_on w2 "$SCALING" worker-host-site /root
check "w2: only its tier listener and loopback listen" only_tier_listens w2 "$W2"
w2_back_in_front() {  # the operator's edit: the shipped file's w2 lines, this network's addresses
  sed 's/10\.0\./10.214./g' "$(ct_root front)/usr/share/keeper-front/nginx/keeper-front-hosts.conf" \
    >"$(ct_root front)/etc/nginx/conf.d/keeper-front-hosts.conf"
}
check "front: w2 in its hosts file" w2_back_in_front
check "front: reloaded (scaling.md)" on_front "$SCALING" front-reload /root
calls_on() { in_host "$1" sh -c "cat /var/log/nginx/keeper-access.log 2>/dev/null | grep -c GetUtcNow"; }
both_serve() {  # new calls go to both hosts in turn
  local w1_before w2_before
  w1_before=$(calls_on w1) w2_before=$(calls_on w2)
  for _ in 1 2 3 4 5 6; do curl -sfk -o /dev/null "https://$FRONT/GlobalApi.asmx/GetUtcNow" || return 1; done
  echo "GetUtcNow calls: w1 $w1_before -> $(calls_on w1), w2 $w2_before -> $(calls_on w2)"
  [ "$(calls_on w1)" -ge $((w1_before + 2)) ] && [ "$(calls_on w2)" -ge $((w2_before + 2)) ]
}
# Within seconds: nginx's old workers, with the old hosts, take calls until the new ones run.
check "through the front: calls go to w1 and w2 in turn" eventually both_serve

# --- the worker hosts upgraded one at a time under writes through the front (the runbook) --------
# The newer package has one more migration (tests/deploy/next-migrations). The machine writes
# through the front all along, as clients on kept connections; then a setting (call_budget_ms) is
# rolled across the hosts the same way.
db_query() { in_host db1 sh -c "cd / && runuser -u postgres -- psql -XAtq -d keeper -c \"$1\""; }
t=$(now)
next_host_packages() {
  next_package "$WORK/pkg-next" >/dev/null &&
    for host in w1 w2; do mkdir -p "$(ct_root $host)/root/pkg-next" && cp "$WORK"/pkg-next/keeper_*.deb "$(ct_root $host)/root/pkg-next/"; done
}
check "the newer package (one more migration)" next_host_packages
figure "newer package: $(since "$t") s"
roll_start=$(db_query "SELECT now()")
rm -f "$WORK/roll.stop"
PYTHONPATH="$SRC/tests" python3 "$HERE/front_load.py" "$FRONT" alice "$SECRET" "$WORK/roll.stop" 2 >"$WORK/roll.json" 2>"$WORK/roll.err" &
roll_pid=$!
sleep 3
t=$(now)
for host in w1 w2; do
  check "$host: drained at the host (scaling.md, Upgrading the worker hosts)" run_doc_on "$host" "$SCALING" drain-host /root
  check "$host: the newer package installed, keeper stopped (scaling.md)" \
    run_doc_on "$host" "$SCALING" upgrade-drained-host /root/pkg-next
  check "$host: started and checked, nothing due (scaling.md)" run_doc_on "$host" "$SCALING" start-drained-host /root
  check "$host: returned (scaling.md)" run_doc_on "$host" "$SCALING" return-host /root
  sleep 12  # the front tries a host it found refusing again after fail_timeout (10 s)
done
check "through the front: calls go to both upgraded hosts" eventually both_serve
figure "rolling upgrade: $(since "$t") s for two hosts"
check "the migration ran once, on the first host" test "$(db_query 'SELECT count(*) FROM deploy_upgrade_check')" = 1
for host in w1 w2; do  # a setting rolled host by host (scaling.md, "Rolling a setting across the hosts")
  check "$host: call_budget_ms changed and reloaded" \
    in_host "$host" sh -c "echo 'call_budget_ms = 9000' >>/etc/keeper/keeper.conf && systemctl reload keeper"
  sleep 3
done
touch "$WORK/roll.stop"
wait "$roll_pid"
rolled_cleanly() {  # every call answered 0, or "unknown" and then resolved by /call-outcome
  python3 - "$WORK/roll.json" <<'PY'
import json, sys
s = json.loads(open(sys.argv[1]).read() or "{}")
print(json.dumps(s))
resolved = sum(n for outcome, n in s.get("resolved", {}).items() if outcome in ("recorded", "none"))
ok = s.get("calls", 0) > 50 and s["ok"] + s["unknown"] == s["calls"] and resolved == s["unknown"]
sys.exit(0 if ok else 1)
PY
}
check "rolling upgrade under writes: no call failed or unanswered, every unknown resolved" rolled_cleanly
figure "rolling upgrade under writes: $(tr -d '\n' <"$WORK/roll.json")"
check "rolling upgrade: no call applied twice" test "$(db_query "SELECT count(*) FROM (SELECT request_id FROM audit_log \
  WHERE at >= '$roll_start' GROUP BY request_id HAVING count(*) > 1) twice")" = 0

# --- a switchover under the worker host ------------------------------------------------------------
printf 'db1\ndb2\n\ny\n' >"$WORK/switchover.answers"
check "a switchover by patronictl with the documented credentials (scaling.md)" \
  run_as db1 1 patroni-switchover /root "$WORK/switchover.answers"
check "db2: the Leader after the switchover" patroni_says db1 '\| db2 .*\| Leader +\| running'
check "db1: the Sync Standby after the switchover" patroni_says db1 '\| db1 .*\| Sync Standby +\| (running|streaming)'
check "backup: archiving goes on from the new primary (pgbackrest check)" \
  in_host backup runuser -u postgres -- pgbackrest --stanza=keeper check

check "through the front: Authenticate after the switchover (the new primary)" eventually authenticates after

# --- a failover: the Leader's host loses its power (the runbook "Failover") ----------------------
t=$(now)
ct_power_cut db2
writes_again() {  # within 90 s: the shipped timings' failover, then the call's own deadline
  local until=$((SECONDS + 90))
  until authenticates failover; do [ "$SECONDS" -lt "$until" ] || return 1; done
}
check "through the front: writes served again after the Leader's power cut" writes_again
figure "failover: writes served again $(since "$t") s after the Leader's power cut"
survivor_leads() { run_doc_on db1 "$SCALING" failover-list /root 2>/dev/null | grep -E '\| db1 .*\| Leader +\| running'; }
check "db1: the Leader, alone (scaling.md, Failover)" survivor_leads
check "db2: boots again" ct_boot db2
check "db2: etcd and Patroni started (scaling.md, Failover)" run_doc_on db2 "$SCALING" failover-rejoin /root
check "db2: rejoins as the Sync Standby" patroni_says db1 '\| db2 .*\| Sync Standby +\| (running|streaming)'

# --- a restore to a point in time of the cluster (the runbook) ------------------------------------
sessions_on() {  # sessions_on HOST [PORT]: the sessions in keeper's database there
  in_host "$1" sh -c "cd / && runuser -u postgres -- psql -XAtq -p ${2:-5432} -d keeper -c 'SELECT count(*) FROM sessions'"
}
before=$(sessions_on db1)
target=$(date -u '+%Y-%m-%d %H:%M:%S+00')
sleep 1.1  # the late write commits after the target's second
check "through the front: a write after the target" authenticates late
restore_copy() {
  DOC_VARIABLE="TARGET=$target" run_doc_on db1 "$SCALING" cluster-restore-copy /root || return 1
  local copy live
  copy=$(sessions_on db1 5433) live=$(sessions_on db1)
  echo "sessions: $before before the target, $copy in the copy, $live live"
  [ "$copy" = "$before" ] && [ "$live" = $((before + 1)) ]
}
check "db1: a copy restored to the target beside the live cluster (scaling.md)" restore_copy
for host in w1 w2; do
  check "$host: keeper stops (scaling.md, Restore)" run_doc_on "$host" "$SCALING" cluster-restore-pools-stop /root
done
check "db2: Patroni stops (scaling.md, Restore)" run_doc_on db2 "$SCALING" cluster-restore-standby-stop /root
DOC_VARIABLE="TARGET=$target" \
  check "db1: the copy made the cluster (scaling.md, Restore)" run_doc_on db1 "$SCALING" cluster-restore-in-place /root
check "db2: clones the restored node (scaling.md, Restore)" run_doc_on db2 "$SCALING" cluster-restore-standby /root
check "db2: the Sync Standby of the restored cluster" patroni_says db1 '\| db2 .*\| Sync Standby +\| (running|streaming)'
for host in w1 w2; do
  check "$host: keeper starts (scaling.md, Restore)" run_doc_on "$host" "$SCALING" cluster-restore-pools-start /root
done
restored_live() { local got; got=$(sessions_on db1); [ "$got" = "$before" ] || { echo "sessions: $got, not $before"; return 1; }; }
check "db1: the live cluster holds what it held at the target" restored_live
check "through the front: a write on the restored cluster" eventually authenticates restored
check "backup: a full backup of the restored cluster (scaling.md, Restore)" \
  run_doc_on backup "$SCALING" cluster-restore-backup /root
check "backup: archiving goes on from the restored cluster (pgbackrest check)" \
  in_host backup runuser -u postgres -- pgbackrest --stanza=keeper check

# --- an intruder on the hosts' network ---------------------------------------------------------
refused() {  # refused URL: no connection at all (curl's 7)
  curl -sk --max-time 5 -o /dev/null "$1"
  local status=$?
  [ "$status" -eq 7 ] || { echo "curl $1: exit $status, not 7 (connection refused)"; return 1; }
}
check "intruder: w1's port 443 is closed" refused "https://$W1/GlobalApi.asmx/GetUtcNow"
check "intruder: w1's port 80 is closed" refused "http://$W1/live"
no_call_without_certificate() {  # nginx refuses the request before anything reaches a worker
  local got
  got=$(curl -sk --max-time 5 -w '\n%{http_code}' "https://$W1:8443/GlobalApi.asmx/GetUtcNow")
  [ "$(tail -n 1 <<<"$got")" = 400 ] && ! grep -q 'dateTime' <<<"$got" || { echo "got: $got"; return 1; }
}
check "intruder: w1's tier listener refuses a peer without the tier's certificate" no_call_without_certificate

# pgBackRest's TLS servers (port 8432, "Backups of the cluster"). The intruder runs pgBackRest
# itself, resolving the tier's names as the hosts do: with db1's own pair the repository host
# lists its backups (what is at stake, and proof that the probe reaches the server), then each
# server refuses an authority the intruder made (a certificate named as an admitted host), and
# denies the tier's own certificate of a host it does not admit (db3's, the etcd-only host).
INTRUDER=$WORK/intruder TIER_CERTS=$(ct_root w1)/root/keeper-tier
mkdir -p "$INTRUDER/repo"
{ cat /etc/hosts; names; } >"$INTRUDER/hosts"
: >"$INTRUDER/pgbackrest.conf"
(cd "$INTRUDER" && for cert in "ca" "db1 db1.example" "backup backup.example"; do
  "$SRC/scripts/make-certs" . $cert || exit; done) >"$INTRUDER/make-certs.log" 2>&1
intruder_pgbackrest() {  # the machine's pgBackRest, with the hosts' names and no configuration
  unshare -m bash -c 'mount --bind "$0" /etc/hosts && exec timeout 60 pgbackrest "$@"' "$INTRUDER/hosts" \
    --config="$INTRUDER/pgbackrest.conf" --lock-path="$INTRUDER" --log-path="$INTRUDER" \
    --log-level-file=off --stanza=keeper "$@" 2>&1
}
from_repository() {  # from_repository DIR NAME: pgbackrest info from the repository host, as NAME
  intruder_pgbackrest --repo1-host=backup.example --repo1-host-type=tls --repo1-host-ca-file="$TIER_CERTS/ca.crt" \
    --repo1-host-cert-file="$1/$2.crt" --repo1-host-key-file="$1/$2.key" info
}
from_node() {  # from_node HOST DIR NAME: a stanza of the node's cluster, into the intruder's own repository
  intruder_pgbackrest --pg1-host="$1.example" --pg1-host-type=tls --pg1-host-ca-file="$TIER_CERTS/ca.crt" \
    --pg1-host-cert-file="$2/$3.crt" --pg1-host-key-file="$2/$3.key" \
    --pg1-path=/var/lib/postgresql/15/keeper --repo1-path="$INTRUDER/repo" stanza-create
}
says() {  # says TEXT COMMAND...: the command's output holds TEXT, whatever its status
  local text=$1 got
  shift
  got=$("$@")
  grep -qF -- "$text" <<<"$got" || { echo "got: $got"; return 1; }
}
check "intruder with db1's own pair: the repository host lists its backups (the probe reaches it)" \
  says "full backup:" from_repository "$TIER_CERTS" db1
check "intruder, another authority's db1: the repository host refuses the handshake" \
  says "unknown ca" from_repository "$INTRUDER" db1
check "intruder, the tier's certificate of db3: the repository host denies access" \
  says "access denied" from_repository "$TIER_CERTS" db3
for host in db1 db2; do
  check "intruder, another authority's backup: $host's pgBackRest refuses the handshake" \
    says "unknown ca" from_node "$host" "$INTRUDER" backup
  check "intruder, the tier's certificate of db3: $host's pgBackRest denies access" \
    says "access denied" from_node "$host" "$TIER_CERTS" db3
done
for host in db1 db2 backup; do
  check "intruder without a certificate: $host's pgBackRest says it is alive and serves nothing" \
    python3 "$HERE/pgbackrest_no_certificate.py" "${ADDRESS[$host]}" "$TIER_CERTS/ca.crt"
done

# KEEPER_DEPLOY_HOLD=1 keeps the hosts up until the file $WORK/release exists, to look at them.
[ -z "${KEEPER_DEPLOY_HOLD:-}" ] || { say "holding: touch $WORK/release"; until [ -e "$WORK/release" ]; do sleep 1; done; }
figure "$passed passed, $failed failed"
say "$(cat "$WORK/figures")"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
