# The suites that run again on layered tasks (tests/CMakeLists.txt,
# at_layered_suite): one line each.
at_layered_suite(layered)
at_layered_suite(net_run)
at_layered_suite(net_secrets)
at_layered_suite(net_proxy)
at_layered_suite(net_npm)
at_layered_suite(publish)
at_layered_suite(publish_user)
at_layered_suite(notify)
at_layered_suite(notify_user)
at_layered_suite(setup)
at_layered_suite(setup_user)
