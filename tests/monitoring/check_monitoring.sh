#!/usr/bin/env bash
# The shipped monitoring: the alert rules load, their unit tests pass (promtool test rules, on
# synthetic series), and every query of the Grafana dashboard is PromQL that promtool accepts
# (each becomes a recording rule of a throw-away rules file, which promtool checks).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

promtool check rules "$root/packaging/prometheus/keeper-alerts.yml"
promtool test rules "$here/keeper-alerts.test.yml"

python3 - "$root/packaging/grafana/keeper-dashboard.json" "$work/dashboard-rules.yml" <<'PY'
import json, sys
dash = json.load(open(sys.argv[1]))
exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]
assert exprs, "the dashboard has no queries"
with open(sys.argv[2], "w") as out:
    out.write("groups:\n  - name: dashboard\n    rules:\n")
    for i, e in enumerate(exprs):
        out.write(f"      - record: keeper:dashboard_query_{i}\n        expr: {json.dumps(e)}\n")
print(f"{len(exprs)} dashboard queries")
PY
promtool check rules "$work/dashboard-rules.yml"

# Every keeper series the rules and the dashboard use is one keeper exports: the running stack's
# /metrics, or a file for node_exporter's textfile collector that keeperctl maintain
# (maintain_metrics.cpp) or the backup unit (backup-metrics) writes; so neither can silently
# watch a name that does not exist.
# Without the running stack there is nothing to compare with, and the check fails rather than pass.
[ -n "${KEEPER_TEST_PORT:-}" ] || { echo "KEEPER_TEST_PORT is not set: run through scripts/test"; exit 1; }
curl -fsS "http://127.0.0.1:$KEEPER_TEST_PORT/metrics" >"$work/metrics.txt"
grep -ohE '# TYPE keeper_[a-z_]+ ' "$root/db/keeperctl/maintain_metrics.cpp" "$root/packaging/pgbackrest/backup-metrics" >>"$work/metrics.txt"
grep -ohE '"keeper_[a-z_]+"' "$root/db/keeperctl/maintain_metrics.cpp" | tr -d '"' | sed 's/^/# TYPE /; s/$/ /' >>"$work/metrics.txt"
# (comments, and a job's name such as keeper_tls, hold no series)
sed -E '/^ *#/d; s/job=\\?"[a-z_]+\\?"//g' "$root/packaging/prometheus/keeper-alerts.yml" "$root/packaging/grafana/keeper-dashboard.json" |
  grep -oE 'keeper_[a-z_]+' |
  sed -E 's/_(bucket|sum|count)$//' | sort -u | while read -r name; do
    grep -q "^# TYPE $name " "$work/metrics.txt" || { echo "not exported by keeper: $name"; exit 1; }
  done
echo "every series used is exported"
