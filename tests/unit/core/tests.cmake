at_unit_test(test_name unit/core/test_name.c at_core)
at_unit_test(test_state unit/core/test_state.c at_core)
at_unit_test(test_lock unit/core/test_lock.c at_core)
at_unit_test(test_json unit/core/test_json.c at_core)
at_unit_test(test_fs unit/core/test_fs.c at_core)
at_unit_test(test_parse unit/core/test_parse.c at_core)
at_unit_test(test_audit unit/core/test_audit.c at_core)
# The swap race is made deterministic by wrapping the calls that name a path.
target_link_options(test_fs PRIVATE
	-Wl,--wrap=openat,--wrap=unlinkat,--wrap=fchmodat,--wrap=fstatat)
at_unit_test(test_runs unit/core/test_runs.c at_core)
at_unit_test(test_ignore unit/core/test_ignore.c at_core)
at_unit_test(test_esc unit/core/test_esc.c at_core)
at_unit_test(test_capture unit/core/test_capture.c at_core)
