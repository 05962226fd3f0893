at_unit_test(test_sandbox_opts unit/sandbox/test_opts.c at_sandbox)
at_unit_test(test_sandbox_seccomp unit/sandbox/test_seccomp.c at_sandbox)
at_unit_test(test_sandbox_plan unit/sandbox/test_plan.c at_sandbox)
at_unit_test(test_sandbox_limits unit/sandbox/test_limits.c at_sandbox)
at_unit_test(test_sandbox_etc unit/sandbox/test_etc.c at_sandbox)
# Likewise the /etc listings' window (tests/unit/clock.h).
target_link_options(test_sandbox_etc PRIVATE -Wl,--wrap=clock_gettime)
at_unit_test(test_sandbox_waiting unit/sandbox/test_waiting.c at_sandbox)
target_link_libraries(test_sandbox_waiting PRIVATE util)
