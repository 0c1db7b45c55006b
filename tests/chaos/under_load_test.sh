#!/usr/bin/env bash
# Chaos under load (under_load.py) on a stack of its own, nginx on 127.0.0.1:18380: it kills that
# stack's workers, restarts and stalls its PostgreSQL, and so runs beside the other tiers.
here=$(dirname "${BASH_SOURCE[0]}")
exec "$here/../harness/own_stack.sh" chaos 18380 /usr/bin/python3 "$here/under_load.py"
