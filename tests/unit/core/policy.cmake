at_unit_test(test_glob unit/core/test_glob.c at_core)
at_unit_test(test_policy unit/core/test_policy.c at_core)
at_unit_test(test_runconf unit/core/test_runconf.c at_core)
