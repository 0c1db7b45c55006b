# Shared by scripts/serve and scripts/test: install, build, and run a private keeper stack
# (PostgreSQL, the worker pool, nginx) under one state directory. Source it; it defines functions.
# Runs as root (it installs packages); PostgreSQL and the workers run as the unprivileged user
# "keeper", because PostgreSQL refuses root and the workers need no privilege.

KEEPER_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SERVICE_USER=keeper
# What building and serving keeper needs (scripts/serve installs only these): the compiler, the
# libraries keeper-fcgi and keeperctl link (the workers' tcmalloc: libgoogle-perftools-dev),
# PostgreSQL with pg_partman, nginx, and curl.
KEEPER_RUNTIME_PACKAGES=(
  build-essential cmake pkg-config
  libfcgi-dev libxml2-dev libssl-dev libpqxx-dev nlohmann-json3-dev libgoogle-perftools-dev
  postgresql postgresql-15-partman nginx curl
)
# What the tests need besides (scripts/test installs both lists): Boost.Test, the Debian package's
# tools, clang-format (unit.format), TLS, the client stacks, monitoring, the browser, high
# availability and backups, and the deploy tier's container (systemd-nspawn over a debootstrapped
# Debian 12), and the test network of hosts (network namespaces, veth, nftables:
# tests/harness/hostnet.py) with its captures (tcpdump).
KEEPER_TEST_PACKAGES=(
  libboost-test-dev dpkg-dev man-db adduser systemd ssl-cert openssl libxml2-utils
  python3-zeep python3-jsonschema php-cli php-soap prometheus
  chromium chromium-driver python3-selenium patroni etcd-server pgbackrest
  systemd-container debootstrap pgbouncer ccache iproute2 nftables tcpdump clang-format faketime
)
# With ccache (a test package), a build compiles each unchanged translation unit once: the deploy
# tier's second package, built in a directory of its own beside build/, finds all but its
# embedded migrations in the cache. Paths are hashed relative to the clone, and the compiling
# directory not at all, so that both build directories share the entries.
export CCACHE_BASEDIR=$KEEPER_ROOT CCACHE_NOHASHDIR=true
compiler_launcher() { command -v ccache >/dev/null && printf -- '-DCMAKE_CXX_COMPILER_LAUNCHER=ccache\n' || true; }

say() { printf '%s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

ensure_root() { [ "$(id -u)" = 0 ] || die "run as root: it installs Debian packages and starts services as user $SERVICE_USER"; }

# Installs the Debian packages named that are missing, e.g. ensure_packages "${KEEPER_RUNTIME_PACKAGES[@]}".
ensure_packages() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

ensure_service_user() {
  id "$SERVICE_USER" >/dev/null 2>&1 ||
    useradd --system --user-group --home-dir /nonexistent --shell /usr/sbin/nologin "$SERVICE_USER"
}

# Runs a command as the service user (setpriv execs it: no extra process in between).
as_service() { setpriv --reuid="$SERVICE_USER" --regid="$SERVICE_USER" --init-groups -- "$@"; }

# The state directory for a stack named $1: var/$1 in the checkout when the service user can
# reach it, else under /var/tmp (a checkout under /root is not reachable by other users).
state_dir() {
  local name=$1 dir="$KEEPER_ROOT/var/$1"
  mkdir -p "$dir"
  if ! as_service test -x "$dir"; then
    dir="/var/tmp/keeper-$(printf '%s' "$KEEPER_ROOT" | md5sum | cut -c1-8)/$name"
    mkdir -p "$dir"
    chmod 755 "$(dirname "$dir")"
  fi
  chmod 755 "$dir"
  printf '%s\n' "$dir"
}

# build/, or build-asan/ with KEEPER_SANITIZE=1 (ASan + UBSan: scripts/test's second pass).
keeper_build_dir() {
  if [ "${KEEPER_SANITIZE:-0}" = 1 ]; then printf '%s/build-asan\n' "$KEEPER_ROOT"; else printf '%s/build\n' "$KEEPER_ROOT"; fi
}

# npm fetches the /openapi page's Swagger UI (packaging/openapi-ui, the target openapi_ui) and the
# tests' OpenAPI validator. Node.js from Debian's packages unless the machine has it already.
ensure_npm() { command -v npm >/dev/null || ensure_packages nodejs npm; }

# The npm packages the tests run (tests/e2e/openapi/package-lock.json: the OpenAPI validator, the client
# generator, openapi-fetch and TypeScript), installed
# with `npm ci` beside the build, again only when the lock file changed. Prints their directory.
ensure_node_tools() {
  ensure_npm
  local dir
  dir="$(keeper_build_dir)/node-tools"
  if [ ! -d "$dir/node_modules" ] || ! cmp -s "$KEEPER_ROOT/tests/e2e/openapi/package-lock.json" "$dir/package-lock.json"; then
    mkdir -p "$dir"
    cp "$KEEPER_ROOT/tests/e2e/openapi/package.json" "$KEEPER_ROOT/tests/e2e/openapi/package-lock.json" "$dir/"
    (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null) || die "npm ci of the test tools failed"
  fi
  printf '%s\n' "$dir"
}

# Builds everything with the tests, or only the targets named, without configuring the tests (so
# that serving needs no test package; scripts/serve: keeper-fcgi keeperctl openapi_ui).
# `build_keeper --tests TARGET...` configures the tests but builds only the targets named (the
# sanitizer pass builds only what it runs). npm is needed only for the target openapi_ui, the
# /openapi page's assets, which "all" includes: the server itself builds without a network.
build_keeper() {
  local dir tests=ON; dir=$(keeper_build_dir)
  if [ "${1:-}" = --tests ]; then
    shift
  elif [ $# -gt 0 ]; then
    tests=OFF
  fi
  if [ $# -eq 0 ] || printf '%s\n' "$@" | grep -qx openapi_ui; then ensure_npm; fi
  # A build directory of an older tree may hold a keeperctl binary where CMake now wants the
  # folder keeperctl/: take it away, or CMake cannot generate.
  [ -f "$dir/keeperctl" ] && rm -f "$dir/keeperctl"
  cmake -S "$KEEPER_ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKEEPER_SANITIZE="${KEEPER_SANITIZE:-0}" \
    -DKEEPER_TESTS=$tests $(compiler_launcher) >/dev/null
  if [ $# -gt 0 ]; then
    cmake --build "$dir" -j "$(nproc)" --target "$@"
  else
    cmake --build "$dir" -j "$(nproc)"
  fi
}

# The state directory of stack $1 (state_dir), emptied (its stack stopped first) and the built
# binaries installed in it.
fresh_state() {
  local dir; dir=$(state_dir "$1")
  stop_stack "$dir"
  rm -rf "$dir"
  dir=$(state_dir "$1")
  install_keeper "$dir"
  printf '%s\n' "$dir"
}

# Installs the built binaries into $1/install, where the service user can run them.
install_keeper() {
  local state=$1
  cmake --install "$(keeper_build_dir)" --prefix "$state/install" >/dev/null
  chmod -R a+rX "$state/install"
}

# The connection string for stack $1 as database role $2 (default: the schema owner, which is the
# cluster's bootstrap superuser here). keeperctl roles creates keeper_worker, keeper_maintain and
# keeper_provision; the socket trusts local connections of this private cluster.
database_url() { printf 'host=%s/run dbname=keeper user=%s' "$1" "${2:-$SERVICE_USER}"; }

# The one starter and stopper of a private stack's processes (PostgreSQL, the pool, nginx), shared
# with the Python tests.
private_stack() { python3 "$KEEPER_ROOT/scripts/lib/private_stack.py" "$@"; }

# Starts (creating on first use) a private PostgreSQL listening only on a unix socket in $1/run,
# with the database keeper. Extra server settings may follow, e.g. "-c fsync=off" for throw-away
# test data.
start_postgres() {
  local state=$1; shift
  private_stack start-postgres "$state/pg" "$state/log/postgres.log" "$state/run" "$@" || die "PostgreSQL did not start"
}

stop_postgres() { private_stack stop-postgres "$1/pg"; }

# The key file that seals this stack's shared secrets (made once, kept with the state).
secret_key_file() { printf '%s/secret.keys' "$1"; }
ensure_secret_key() {
  local state=$1 file; file=$(secret_key_file "$1")
  [ -s "$file" ] && return 0
  "$state/install/usr/bin/keeperctl" new-key k1 >"$file"
  chown "root:$SERVICE_USER" "$file"
  chmod 640 "$file"
}

# keeperctl with each task's own role: migrate, status and roles as the owner, add-* and list as
# keeper_provision, maintain as keeper_maintain.
keeperctl() {
  local state=$1; shift
  KEEPER_CONFIG=/dev/null KEEPER_DATABASE_URL=$(database_url "$state" keeper_worker) \
    KEEPER_ADMIN_DATABASE_URL=$(database_url "$state") \
    KEEPER_PROVISION_DATABASE_URL=$(database_url "$state" keeper_provision) \
    KEEPER_MAINTAIN_DATABASE_URL=$(database_url "$state" keeper_maintain) \
    KEEPER_SECRET_KEY_FILE=$(secret_key_file "$state") \
    "$state/install/usr/bin/keeperctl" "$@"
}

# Brings the schema of stack $1 up to date and gives each role its grants.
prepare_database() {
  local state=$1
  ensure_secret_key "$state"
  keeperctl "$state" migrate >/dev/null
  keeperctl "$state" roles >/dev/null
  keeperctl "$state" rotate-key >/dev/null
}

# Starts the worker pool on $1/run/keeper.sock, logging to $1/log/keeper.log; its pid (keeper-fcgi's
# own, leading the pool's process group) in $1/run/keeper.pid.
start_pool() {
  local state=$1 workers=${2:-}
  KEEPER_CONFIG=/dev/null KEEPER_DATABASE_URL=$(database_url "$state" keeper_worker) \
    KEEPER_SECRET_KEY_FILE=$(secret_key_file "$state") \
    private_stack start-pool "$state/run/keeper.pid" "$state/log/keeper.log" "$state/run/keeper.sock" \
    "$state/install/usr/sbin/keeper-fcgi" --listen "$state/run/keeper.sock" --retry-listen "$state/run/keeper-retry.sock" \
    ${workers:+--workers "$workers"} || die "keeper-fcgi did not start"
}

stop_pool() { private_stack stop-pool "$1/run/keeper.pid"; }

# A self-signed certificate for 127.0.0.1 and localhost in $1/tls (made once), and the shipped
# keeper-tls.conf pointed at it.
make_test_certificate() {
  local state=$1
  mkdir -p "$state/tls"
  [ -s "$state/tls/keeper.crt" ] || openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$state/tls/keeper.key" -out "$state/tls/keeper.crt" -days 30 -subj "/CN=localhost" \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2>/dev/null
  shipped_nginx keeper-tls.conf "$state/nginx/keeper-tls.conf" \
    /etc/ssl/certs/ssl-cert-snakeoil.pem "$state/tls/keeper.crt" \
    /etc/ssl/private/ssl-cert-snakeoil.key "$state/tls/keeper.key"
}

# The tier listener's certificates (scripts/make-certs): an authority in $1/tier, this host's
# certificate (host) and the front's (front), and in $1/tier/stranger an authority of another
# tier with a certificate of its own (front), which the listener must refuse.
make_tier_certificates() {
  local dir=$1/tier
  [ -s "$dir/front.crt" ] && return 0
  "$KEEPER_ROOT/scripts/make-certs" "$dir" ca >/dev/null
  # Also the names the shipped keeper-front-hosts.conf gives its hosts: a front on this machine
  # (start_front) reaches this listener as either of them.
  "$KEEPER_ROOT/scripts/make-certs" "$dir" host 127.0.0.1 localhost w1.keeper.internal w2.keeper.internal >/dev/null
  "$KEEPER_ROOT/scripts/make-certs" "$dir" front front >/dev/null
  "$KEEPER_ROOT/scripts/make-certs" "$dir/stranger" ca >/dev/null
  "$KEEPER_ROOT/scripts/make-certs" "$dir/stranger" front front >/dev/null
  chmod 644 "$dir"/*.key "$dir/stranger"/*.key  # throw-away test keys, read by the tests' user
}

# A shipped nginx/ file with production paths replaced (OLD NEW pairs), each of which must be
# there (scripts/lib/nginx_conf.py, the one writer of a private nginx's files).
shipped_nginx() { python3 "$KEEPER_ROOT/scripts/lib/nginx_conf.py" shipped "$@" || die "nginx/$1 changed"; }

# Starts nginx on 127.0.0.1:$2 with the shipped nginx/keeper-upstream.conf (its socket paths
# pointed at this stack's) and nginx/keeper-locations.conf; with KEEPER_TLS_PORT set, also HTTPS
# there with the shipped keeper-tls.conf and a self-signed certificate; with KEEPER_TIER_PORT set,
# also the shipped keeper-tier.conf there (mutual TLS), with certificates of an authority of its
# own in $1/tier (make_tier_certificates). A third argument names a file of extra http-level
# configuration (scripts/bench adds its baseline's server there).
start_nginx() {
  local state=$1 port=$2 extra=${3:-} tls=""
  mkdir -p "$state/nginx"
  shipped_nginx keeper-upstream.conf "$state/nginx/keeper-upstream.conf" unix:/run/keeper/ "unix:$state/run/"
  # The /openapi page's files where this stack installed them.
  shipped_nginx keeper-locations.conf "$state/nginx/keeper-locations.conf" \
    /usr/share/keeper/openapi-ui/ "$state/install/usr/share/keeper/openapi-ui/"
  if [ -n "${KEEPER_TLS_PORT:-}" ]; then
    make_test_certificate "$state"
    tls="server { listen 127.0.0.1:$KEEPER_TLS_PORT ssl http2; include $state/nginx/keeper-tls.conf; include $KEEPER_ROOT/nginx/keeper-errors.conf; include $state/nginx/keeper-locations.conf; }"
  fi
  if [ -n "${KEEPER_TIER_PORT:-}" ]; then
    make_tier_certificates "$state"
    shipped_nginx keeper-tier.conf "$state/nginx/keeper-tier.conf" \
      "listen 10.0.2.11:8443 ssl;" "listen 127.0.0.1:$KEEPER_TIER_PORT ssl; listen 127.0.0.2:$KEEPER_TIER_PORT ssl;" \
      "listen 127.0.0.1:80;" "listen 127.0.0.1:$((KEEPER_TIER_PORT + 2));" \
      /etc/keeper/tier/ "$state/tier/" \
      /var/log/nginx/keeper-access.log "$state/log/nginx-access.log" \
      /var/log/nginx/keeper-error.log "$state/log/nginx-error.log" \
      /etc/keeper/nginx/keeper-locations.conf "$state/nginx/keeper-locations.conf" \
      /etc/keeper/nginx/keeper-errors.conf "$KEEPER_ROOT/nginx/keeper-errors.conf"
    tls="$tls include $state/nginx/keeper-tier.conf;"
  fi
  run_nginx "$state/nginx" "$state/log/nginx" "    include $state/nginx/keeper-upstream.conf;
    server {
        listen 127.0.0.1:$port;
        include $KEEPER_ROOT/nginx/keeper-errors.conf;
        include $state/nginx/keeper-locations.conf;
    }
    $tls
    ${extra:+include $extra;}"
}

# Writes $1/nginx.conf (scripts/lib/nginx_conf.py), an nginx of a private stack (its pid and
# temporary files in $1, its logs $2-error.log and $2-access.log) with keeper's http-level files
# and the http-level text $3, then checks and starts it.
run_nginx() {
  local dir=$1 logs=$2 http=$3
  # A client's connection and one to the pool per request in flight: 2048 clients (the bench's
  # overload case) need 4096 descriptors, more than the usual soft limit of 1024. NGINX_LIMITS=debian
  # keeps Debian's /etc/nginx/nginx.conf limits instead (768 connections a worker, the service's
  # 1024 files), for measuring what the untuned package meets.
  local limits=(--rlimit 16384 --connections 8192)
  if [ "${NGINX_LIMITS:-}" = debian ]; then limits=(--connections 768); fi
  printf '%s\n' "$http" >"$dir/http.conf"
  python3 "$KEEPER_ROOT/scripts/lib/nginx_conf.py" conf "$dir/nginx.conf" --prefix "$dir" \
    --error-log "$logs-error.log" --access-log "$logs-access.log keeper" --http-file "$dir/http.conf" \
    --user "$SERVICE_USER" --workers 2 "${limits[@]}" || die "could not write $dir/nginx.conf"
  chown "$SERVICE_USER:" "$dir/tmp"
  private_stack start-nginx "$dir" "$logs-error.log" || die "nginx did not start with $dir/nginx.conf"
}

# Each nginx of stack $1 (its own, and the front's) stopped after the calls it holds.
stop_nginx() { private_stack stop-nginx "$1/nginx"; private_stack stop-nginx "$1/front"; }

# Starts the front (docs/scaling.md, "The front") on 127.0.0.1:$2: a second nginx with the shipped
# keeper-front-locations.conf and keeper-front-hosts.conf, both of whose hosts are this stack's
# tier listener on KEEPER_TIER_PORT (start_nginx, with it set), over mutual TLS.
start_front() {
  local state=$1 port=$2 dir=$1/front
  mkdir -p "$dir"
  shipped_nginx keeper-front-hosts.conf "$dir/hosts.conf" 10.0.2.11:8443 "127.0.0.1:$KEEPER_TIER_PORT" \
    10.0.2.12:8443 "127.0.0.2:$KEEPER_TIER_PORT"
  shipped_nginx keeper-front-locations.conf "$dir/locations.conf" /etc/keeper/tier/ "$state/tier/"
  run_nginx "$dir" "$state/log/nginx-front" "    include $dir/hosts.conf;
    server {
        listen 127.0.0.1:$port;
        include $KEEPER_ROOT/nginx/keeper-errors.conf;
        include $dir/locations.conf;
    }"
}

# Waits until GetUtcNow answers through nginx on port $1.
wait_for_http() {
  local port=$1
  for _ in $(seq 100); do
    curl -fsS -o /dev/null "http://127.0.0.1:$port/GlobalApi.asmx/GetUtcNow" 2>/dev/null && return 0
    sleep 0.1
  done
  die "the stack does not answer on port $port"
}

# A stack for tests in $1 with nginx on port $2, and KEEPER_TEST_* naming it for the tests
# (scripts/test's own, and tests/harness/own_stack.sh's for a test that breaks its stack).
start_test_stack() {
  local state=$1 port=$2
  # Throw-away data: durability off makes the database tier fast and changes no behaviour.
  start_postgres "$state" -c fsync=off -c synchronous_commit=off -c full_page_writes=off
  prepare_database "$state"
  start_pool "$state" 4
  start_nginx "$state" "$port"
  wait_for_http "$port"
  export KEEPER_TEST_STATE=$state KEEPER_TEST_PORT=$port KEEPER_TEST_TLS_PORT=${KEEPER_TLS_PORT:-}
  export KEEPER_TEST_TIER_PORT=${KEEPER_TIER_PORT:-} KEEPER_TEST_TLS_CA=$state/tls/keeper.crt
  export KEEPER_TEST_ADMIN_URL="host=$state/run dbname=postgres user=$SERVICE_USER"
  # keeperctl (client tests) and the pools the tests start themselves seal and open with this key.
  export KEEPER_SECRET_KEY_FILE KEEPER_TEST_DATABASE_URL KEEPER_TEST_WORKER_DATABASE_URL KEEPER_TEST_PROVISION_DATABASE_URL
  KEEPER_SECRET_KEY_FILE=$(secret_key_file "$state")
  KEEPER_TEST_DATABASE_URL=$(database_url "$state")  # the schema owner: provisioning and checks
  KEEPER_TEST_WORKER_DATABASE_URL=$(database_url "$state" keeper_worker)
  KEEPER_TEST_PROVISION_DATABASE_URL=$(database_url "$state" keeper_provision)
  # Every JSON answer the C++ end-to-end tests receive, for e2e.openapi (tests/e2e/openapi).
  export KEEPER_TEST_JSON_CAPTURE=$state/json-answers.jsonl
  export KEEPER_TEST_POOL_PID
  KEEPER_TEST_POOL_PID=$(cat "$state/run/keeper.pid")
}

stop_stack() {
  local state=$1
  stop_nginx "$state"
  stop_pool "$state"
  stop_postgres "$state"
}

auth_hash() { printf '%s' "$(printf '%s:%s:%s' "$1" "$2" "$3" | tr '[:upper:]' '[:lower:]')" | md5sum | cut -d' ' -f1; }
