"""What the tests start and share, from one machine to booted hosts: the stack scripts/test started
(test_stack), a keeper stack of a test's own with its recorded writers (keeper_stack), the hosts'
network namespaces (hostnet), keeper across them (net_stack), a Patroni cluster (patroni_cluster),
load threads (threads), a FastCGI peer of the pool (fastcgi), one HTTP call (web), a bounded wait
(wait), and booted Debian hosts for the deploy tier (containers.sh, image.sh). Every process outside
systemd starts and stops through scripts/lib/private_stack.py, which scripts/serve and scripts/test
use too. Imported by name
(`from harness.keeper_stack import ...`): ctest gives every test PYTHONPATH with tests/, scripts/lib
(nginx_conf, private_stack) and bench/ (tests/CMakeLists.txt); to run one by hand, set the same
(docs/design.md, "Tests")."""
