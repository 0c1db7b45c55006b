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

# Every keeper_* and process_* series the rules and the dashboard use is one keeper exports: the
# running stack's /metrics, or a file for node_exporter's textfile collector that keeperctl
# maintain (maintain_metrics.cpp) or the backup unit (backup-metrics) writes; so neither can
# silently watch a name that does not exist.
# Without the running stack there is nothing to compare with, and the check fails rather than pass.
[ -n "${KEEPER_TEST_PORT:-}" ] || { echo "KEEPER_TEST_PORT is not set: run through scripts/test"; exit 1; }
curl -fsS "http://127.0.0.1:$KEEPER_TEST_PORT/metrics" >"$work/metrics.txt"
grep -ohE '# TYPE keeper_[a-z_]+ ' "$root/keeperctl/maintain_metrics.cpp" "$root/packaging/pgbackrest/backup-metrics" >>"$work/metrics.txt"
grep -ohE '"keeper_[a-z_]+"' "$root/keeperctl/maintain_metrics.cpp" | tr -d '"' | sed 's/^/# TYPE /; s/$/ /' >>"$work/metrics.txt"
# (comments, and a job's name such as keeper_tls, hold no series)
sed -E '/^ *#/d; s/job=\\?"[a-z_]+\\?"//g' "$root/packaging/prometheus/keeper-alerts.yml" "$root/packaging/grafana/keeper-dashboard.json" |
  grep -oE '(keeper|process)_[a-z_]+' |
  sed -E 's/_(bucket|sum|count)$//' | sort -u | while read -r name; do
    grep -q "^# TYPE $name " "$work/metrics.txt" || { echo "not exported by keeper: $name"; exit 1; }
  done
# Every metric the docs name is exported too: a name in README, docs/ or a man page that shares its
# family (its first two words, as keeper_database_) with an exported series, or is a process_*
# name, must be one.
python3 - "$root" "$work/metrics.txt" <<'PY'
import pathlib, re, sys
root, exported_file = pathlib.Path(sys.argv[1]), sys.argv[2]
exported = set(re.findall(r"^# TYPE ((?:keeper|process)_[a-z_]+) ", open(exported_file).read(), re.M))
families = {"_".join(n.split("_")[:2]) + "_" for n in exported} | {"process_"}
# nginx's variables ($keeper_request_id) share a family's words and are no series.
variables = {v for f in (root / "nginx").glob("*.conf") for v in re.findall(r"\$(keeper_[a-z_]+)", f.read_text())}
docs = [root / "README.md", *sorted((root / "docs").glob("*.md")), *sorted((root / "docs/man").glob("*.8"))]
missing = []
for doc in docs:
    for name in sorted(set(re.findall(r"(?<![a-z_/])(?:keeper|process)_[a-z_]+[a-z]", doc.read_text(encoding="utf-8")))):
        base = re.sub(r"_(bucket|sum|count)$", "", name)
        if any(name.startswith(f) for f in families) and base not in exported and name not in variables:
            missing.append(f"{doc.relative_to(root)}: {name}")
print("\n".join(f"named in the docs, not exported: {m}" for m in missing))
sys.exit(1 if missing else 0)
PY
echo "every series used is exported"
