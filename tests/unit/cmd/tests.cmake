at_unit_test(test_opt unit/cmd/test_opt.c at_cmd)
