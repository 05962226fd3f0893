# The suites that run again on layered tasks (tests/CMakeLists.txt,
# at_layered_suite): one line each.
at_layered_suite(layered)
at_layered_suite(sandbox_git)
at_layered_suite(sandbox_git_user)
at_layered_suite(limits)
at_layered_suite(limits_user)
at_layered_suite(hostile)
at_layered_suite(gc)
at_layered_suite(datasafety)
at_layered_suite(removal)
at_layered_suite(sandbox_holes)
at_layered_suite(sandbox_holes_user)
