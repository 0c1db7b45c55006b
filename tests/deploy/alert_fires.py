#!/usr/bin/python3
"""alert_fires.py RULES ALERT SERIES < metrics: does the shipped rule ALERT fire on these samples?

Reads Prometheus text (what node_exporter serves), holds each sample for ten minutes as instance
"deploy", and has `promtool test rules` expect ALERT firing after five for the sample SERIES
(e.g. 'keeper_maintain_last_run_success'), with its labels and the annotations the rule renders
for it. Exit 0 when it fires so; promtool's report otherwise.
"""
import re
import subprocess
import sys
import tempfile

import yaml

rules_file, alert, wanted = sys.argv[1], sys.argv[2], sys.argv[3]
series, firing = [], None
for line in sys.stdin:
    m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$', line.strip())
    if not m:
        continue
    name, labels, value = m.group(1), (m.group(2) or "{}")[1:-1], m.group(3)
    if f"{name}{m.group(2) or ''}" == wanted:
        firing = (dict(re.findall(r'(\w+)="([^"]*)"', labels)), value)
    labels = ", ".join(x for x in (labels, 'instance="deploy"') if x)
    series.append({"series": f"{name}{{{labels}}}", "values": f"{value}x10"})
if firing is None:
    sys.exit(f"no sample {wanted} in the input")

labels = {**firing[0], "instance": "deploy"}
value = firing[1][:-2] if firing[1].endswith(".0") else firing[1]


def render(text):  # the two template forms keeper's simple rules use
    text = re.sub(r"\{\{ \$labels\.(\w+) \}\}", lambda m: labels.get(m.group(1), ""), text)
    return text.replace("{{ $value }}", value)


rule = next(r for g in yaml.safe_load(open(rules_file))["groups"] for r in g["rules"] if r.get("alert") == alert)
test = {
    "rule_files": [rules_file],
    "evaluation_interval": "1m",
    "tests": [{
        "interval": "1m",
        "input_series": series,
        "alert_rule_test": [{
            "eval_time": "5m",
            "alertname": alert,
            "exp_alerts": [{
                "exp_labels": {**rule.get("labels", {}), **labels},
                "exp_annotations": {k: render(v) for k, v in rule.get("annotations", {}).items()},
            }],
        }],
    }],
}
with tempfile.NamedTemporaryFile("w", suffix=".yml") as f:
    yaml.safe_dump(test, f)
    f.flush()
    sys.exit(subprocess.run(["promtool", "test", "rules", f.name]).returncode)
