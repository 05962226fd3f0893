# The suites that run again on layered tasks (tests/CMakeLists.txt,
# at_layered_suite): one line each.
at_layered_suite(layered)
