at_unit_test(test_bind unit/app/test_bind.c at_app)
at_unit_test(test_app_run unit/app/test_run.c at_app)
