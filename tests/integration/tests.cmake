at_integration_test(lifecycle.sh)
