"""What the Python tests start and share: a keeper stack on hosts of its own (keeper_stack), the
hosts' network namespaces (hostnet), keeper across them (net_stack) and a Patroni cluster
(patroni_cluster). Imported by name (`from harness.keeper_stack import ...`): ctest gives every
test PYTHONPATH with tests/, scripts/lib (nginx_conf, the one writer of a test nginx's files) and
bench/ (tests/CMakeLists.txt); to run one by hand, set the same (docs/design.md, "Tests")."""
