at_unit_test(test_diff_format unit/git/test_diff_format.c at_git)
at_unit_test(test_scan unit/git/test_scan.c at_git)
at_unit_test(test_index_file unit/git/test_index_file.c at_git)
at_unit_test(test_config unit/git/test_config.c at_git)
