# The suites that run again on layered tasks (tests/CMakeLists.txt,
# at_layered_suite): one line each.
at_layered_suite(layered)
at_layered_suite(sandbox_run)
at_layered_suite(sandbox_user)
at_layered_suite(lifecycle)
at_layered_suite(restore)
at_layered_suite(state)
at_layered_suite(concurrency)
at_layered_suite(crash)
