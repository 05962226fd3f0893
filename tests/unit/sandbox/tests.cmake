at_unit_test(test_sandbox_opts unit/sandbox/test_opts.c at_sandbox)
at_unit_test(test_sandbox_seccomp unit/sandbox/test_seccomp.c at_sandbox)
at_unit_test(test_audit unit/sandbox/test_audit.c at_core)
at_unit_test(test_sandbox_limits unit/sandbox/test_limits.c at_sandbox)
