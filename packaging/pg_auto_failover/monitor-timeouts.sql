-- keeper's failover timings for the pg_auto_failover monitor (docs/scaling.md, "Failover time").
-- Run once on the monitor as its superuser: psql -d pg_auto_failover -f monitor-timeouts.sql
-- pg_auto_failover's defaults (health checks every 5 s, unhealthy after 20 s, 30 s for a lost
-- primary to demote itself) give about 50 s from a dead primary to the first write; these give
-- about half. The order of events stays safe: every data node's pg_autoctl demotes its own
-- PostgreSQL after timeout.network_partition_timeout (set to 10 s on each node, see below)
-- without the monitor and the standby, before the monitor's primary_demote_timeout (15 s) lets it
-- promote the standby: two primaries never take writes at once. tests/ha/failover_test.py runs
-- with exactly these.
ALTER SYSTEM SET pgautofailover.health_check_period = '2s';
ALTER SYSTEM SET pgautofailover.health_check_timeout = '2s';
ALTER SYSTEM SET pgautofailover.health_check_max_retries = 2;
ALTER SYSTEM SET pgautofailover.health_check_retry_delay = '1s';
ALTER SYSTEM SET pgautofailover.node_considered_unhealthy_timeout = '10s';
ALTER SYSTEM SET pgautofailover.primary_demote_timeout = '15s';
SELECT pg_reload_conf();
-- On each data node, as postgres:
--   pg_autoctl config set --pgdata /var/lib/postgresql/15/main timeout.network_partition_timeout 10
--   pg_autoctl reload --pgdata /var/lib/postgresql/15/main
