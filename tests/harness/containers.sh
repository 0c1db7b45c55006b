# Booted Debian 12 hosts for the deploy tiers, sourced by their scripts. Each host is a
# systemd-nspawn container with systemd as PID 1, over an overlay of the cached image
# (tests/harness/image.sh), entered with nsenter as root with a clean environment. A host's network
# is its own: a private loopback, or a network namespace of a test network (net_join). The
# commands an operator runs are the docs' own: the code block after a "<!-- deploy: NAME -->"
# marker, run as written (run_doc).
#
# The caller sets WORK (a directory of its own) and passed=0 failed=0, counts its checks with
# check, and calls containers_cleanup on exit, which powers every host off, unmounts it and
# removes every namespace and bridge it made.

say() { printf '%s\n' "$*" >&2; }
check() {  # check "what" command...: says how long each took, the tier's own profile
  local what=$1 began; shift; began=$(now)
  if "$@" >"$WORK/last.out" 2>&1; then passed=$((passed + 1)); say "ok: $what ($(since "$began") s)"
  else failed=$((failed + 1)); say "FAIL: $what"; sed 's/^/  /' "$WORK/last.out" | tail -n 30 >&2; fi
}
figure() { say "figure: $*"; echo "$*" >>"$WORK/figures"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# package BUILD_DIR OUT_DIR: the build's Debian package.
package() { (cd "$1" && cpack -G DEB -B "$2" -D CPACK_OUTPUT_FILE_PREFIX="$2" >/dev/null); }
# next_package OUT_DIR: the newer package the deploy tiers upgrade to, this tree with one more
# migration (tests/deploy/next-migrations) and NEXT_VERSION, which sorts after the tree's. Built in
# one directory for both tiers, which run side by side, under a lock: the second finds it built.
# The tree's compiler flags and launcher (scripts/lib/stack.sh): all but the embedded migrations
# come from ccache.
NEXT_VERSION=$(sed -n 's/^project(keeper VERSION \([0-9.]*\) .*/\1/p' "$SRC/CMakeLists.txt")+deploy1
next_package() {
  local build=$KEEPER_TEST_BUILD_DIR-deploy-next launcher
  launcher=$(grep -m 1 '^CMAKE_CXX_COMPILER_LAUNCHER:' "$KEEPER_TEST_BUILD_DIR/CMakeCache.txt" | cut -d= -f2-)
  (flock 9 && cmake -S "$SRC" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKEEPER_TESTS=OFF \
      ${launcher:+-DCMAKE_CXX_COMPILER_LAUNCHER="$launcher"} -DKEEPER_PACKAGE_VERSION="$NEXT_VERSION" \
      -DKEEPER_EXTRA_MIGRATIONS_DIR="$SRC/tests/deploy/next-migrations" &&
    cmake --build "$build" -j "$(nproc)" --target keeper-fcgi keeperctl && package "$build" "$1") 9>"$build.lock"
}

declare -A CT_ROOT=() CT_NSPAWN=() CT_LEADER=() CT_ARGS=()
CT_NAMESPACES=() CT_BRIDGES=()

# ct_create NAME IMAGE: the host's root, an overlay of IMAGE (written changes stay in WORK).
ct_create() {
  local dir=$WORK/ct-$1
  mkdir -p "$dir/upper" "$dir/overlay-work" "$dir/root"
  mount -t overlay overlay -o "lowerdir=$2,upperdir=$dir/upper,workdir=$dir/overlay-work" "$dir/root" || return 1
  CT_ROOT[$1]=$dir/root
}
ct_root() { printf '%s\n' "${CT_ROOT[$1]}"; }

# ct_prefetch NAME COMMAND: COMMAND in the host's root before it boots, over the machine's network
# (apt's downloads: a booted host's network reaches no mirror).
ct_prefetch() {
  systemd-nspawn -q -D "${CT_ROOT[$1]}" -M "keeper-prefetch-$1-$$" --register=no --keep-unit --pipe -- sh -c "$2"
}

# The host's PID 1 as the machine sees it: the child of systemd-nspawn that is PID 1 in its own
# PID namespace ("NSpid: <machine pid> 1"). nspawn's first child is a short-lived helper that
# forks the container's init and exits, so "the first child" can name a process that is gone a
# moment later.
ct_init_pid() {
  local child
  for child in $(pgrep -P "${CT_NSPAWN[$1]}"); do
    awk '$1 == "NSpid:" && NF == 3 && $3 == 1 { found = 1 } END { exit !found }' "/proc/$child/status" 2>/dev/null &&
      { echo "$child"; return 0; }
  done
  return 1
}

# ct_boot NAME [NSPAWN-ARGS...]: boots the host and waits until systemd runs. The arguments (its
# network) are kept for the next boot, after a reboot. One boot at a time on the machine, whichever
# test boots (the lock on fd 7): two at once on two cores have failed a host's boot
# (systemd-tmpfiles-setup-dev), while booted hosts of two tests run side by side.
ct_boot() {
  local status=0
  exec 7>/run/keeper-ct-boot.lock
  flock 7
  ct_boot_alone "$@" || status=$?
  exec 7>&-
  return $status
}
ct_boot_alone() {
  local name=$1 console=$WORK/ct-$1/console.log leader="" state=""
  shift
  [ $# -gt 0 ] && CT_ARGS[$name]="$*"
  # shellcheck disable=SC2086  # the kept arguments are words without spaces
  setsid systemd-nspawn -q -D "${CT_ROOT[$name]}" -b --register=no --keep-unit -M "keeper-$name-$$" \
    ${CT_ARGS[$name]} >>"$console" 2>&1 </dev/null 7>&- &
  CT_NSPAWN[$name]=$!
  for _ in $(seq 200); do
    leader=$(ct_init_pid "$name") && break
    kill -0 "${CT_NSPAWN[$name]}" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$leader" ] || { echo "host $name did not start" >&2; tail -n 30 "$console" >&2; return 1; }
  CT_LEADER[$name]=$leader
  for _ in $(seq 120); do
    kill -0 "$leader" 2>/dev/null || { echo "host $name's init exited" >&2; tail -n 30 "$console" >&2; return 1; }
    state=$(in_host "$name" systemctl is-system-running 2>/dev/null)
    case $state in running|degraded) break ;; esac
    sleep 0.5
  done
  [ "$state" = running ] || {
    echo "host $name's systemd: $state" >&2
    in_host "$name" systemctl --failed --no-pager >&2
    tail -n 30 "$console" >&2
  }
}

# in_host NAME COMMAND...: runs a command in the booted host, as root, with a clean environment.
in_host() {
  local name=$1
  shift
  nsenter -t "${CT_LEADER[$name]}" -a env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

ct_wait_gone() {
  local pid=${CT_NSPAWN[$1]:-}
  [ -n "$pid" ] || return 0
  for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  return 1
}
# ct_power_cut NAME: every process of the host killed at once (its PID 1 killed: the kernel ends its
# PID namespace), nothing flushed or said on the network; ct_boot NAME boots it again.
ct_power_cut() {
  kill -KILL "${CT_LEADER[$1]}" 2>/dev/null
  ct_wait_gone "$1"
}
ct_poweroff() {
  local pid=${CT_NSPAWN[$1]:-}
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  in_host "$1" systemctl poweroff >/dev/null 2>&1
  ct_wait_gone "$1" || { kill -KILL -- "-$pid" 2>/dev/null; ct_wait_gone "$1"; }
}

# --- a network of hosts ---------------------------------------------------------------------------
# net_bridge BRIDGE ADDRESS/PREFIX: a bridge in the machine's namespace, the machine (the tests'
# clients, and an intruder) at ADDRESS on it.
net_bridge() {
  ip link del "$1" 2>/dev/null
  ip link add "$1" type bridge && ip addr add "$2" dev "$1" && ip link set "$1" up || return 1
  CT_BRIDGES+=("$1")
}
# net_join NAMESPACE BRIDGE ADDRESS/PREFIX: a network namespace with one interface, eth0, on the
# bridge; sets NET_ARG to the nspawn argument that puts a host in it. (Not in a subshell: the
# namespace is recorded for containers_cleanup.)
net_join() {
  local ns=$1 outside=${1:0:10}-v
  NET_ARG=""
  ip netns del "$ns" 2>/dev/null
  ip link del "$outside" 2>/dev/null
  ip netns add "$ns" || return 1
  CT_NAMESPACES+=("$ns")
  ip link add "$outside" type veth peer name eth0 netns "$ns" &&
    ip link set "$outside" master "$2" up &&
    ip -n "$ns" addr add "$3" dev eth0 && ip -n "$ns" link set eth0 up && ip -n "$ns" link set lo up || return 1
  NET_ARG=--network-namespace-path=/run/netns/$ns
}

containers_cleanup() {
  local name ns bridge
  local stopping=()
  for name in "${!CT_NSPAWN[@]}"; do ct_poweroff "$name" & stopping+=($!); done  # all at once
  [ ${#stopping[@]} -eq 0 ] || wait "${stopping[@]}"
  for name in "${!CT_ROOT[@]}"; do mountpoint -q "${CT_ROOT[$name]}" && umount "${CT_ROOT[$name]}"; done
  for ns in "${CT_NAMESPACES[@]}"; do ip netns del "$ns" 2>/dev/null; ip link del "${ns:0:10}-v" 2>/dev/null; done
  for bridge in "${CT_BRIDGES[@]}"; do ip link del "$bridge" 2>/dev/null; done
}

# --- the docs' commands ---------------------------------------------------------------------------
# doc_block FILE NAME: the code block of FILE after "<!-- deploy: NAME -->" (indented like its
# list item, or not), less the indentation of its first line.
doc_block() {
  awk -v marker="<!-- deploy: $2 -->" '
    { line = $0; sub(/^ +/, "", line) }
    !on && line == marker { on = 1; next }
    !on { next }
    /^ *$/ { if (started) blank++; next }
    !started { match($0, /^ */); indent = RLENGTH; if (indent < 4) exit; started = 1 }
    { match($0, /^ */); if (RLENGTH < indent) exit }
    { while (blank > 0) { print ""; blank-- }; print substr($0, indent + 1) }
  ' "$1"
}
# run_doc_on HOST FILE NAME DIR [STDIN]: the block, as root in DIR on HOST, logged to
# WORK/doc-commands.log. DOC_VARIABLE (NAME=value), when set, is in its environment; DOC_EDIT, when
# set, is a sed script applied to the block first: the operator's own names and addresses in
# place of the docs' examples.
run_doc_on() {
  local host=$1 file=$2 name=$3 dir=$4 input=${5:-/dev/null} text
  text=$(doc_block "$file" "$name")
  [ -n "$text" ] || { echo "$(basename "$file") has no block marked <!-- deploy: $name -->"; return 1; }
  [ -z "${DOC_EDIT:-}" ] || text=$(sed -e "$DOC_EDIT" <<<"$text")
  printf '### %s on %s (in %s)%s\n%s\n' "$name" "$host" "$dir" "${DOC_VARIABLE:+ with $DOC_VARIABLE}" "$text" \
    >>"$WORK/doc-commands.log"
  in_host "$host" env ${DOC_VARIABLE:+"$DOC_VARIABLE"} bash -euo pipefail -c "cd $dir && $text" <"$input"
}
