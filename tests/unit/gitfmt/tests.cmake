at_unit_test(test_diff_format unit/gitfmt/test_diff_format.c at_gitfmt)
at_unit_test(test_renames unit/gitfmt/test_renames.c at_gitfmt)
at_unit_test(test_hunks unit/gitfmt/test_hunks.c at_gitfmt)
