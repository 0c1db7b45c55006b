#!/usr/bin/env bash
# own_stack.sh NAME PORT COMMAND...: COMMAND against a keeper stack of its own, started as
# scripts/test starts the one the other tests share (scripts/lib/stack.sh, start_test_stack), in
# the state directory NAME with nginx on 127.0.0.1:PORT, and stopped and removed after it. For a
# test that breaks its stack (restarts its PostgreSQL, stalls its commits, kills its workers): it
# then runs beside the others instead of alone.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/stack.sh"
name=$1 port=$2
shift 2
unset KEEPER_TLS_PORT KEEPER_TIER_PORT  # plain HTTP only
STATE=$(fresh_state "$name")
trap 'stop_stack "$STATE"; rm -rf "$STATE"' EXIT
start_test_stack "$STATE" "$port"
"$@"
