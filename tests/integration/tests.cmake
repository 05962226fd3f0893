at_integration_test(lifecycle.sh)
at_integration_test(accept.sh)
at_integration_test(restore.sh)
at_integration_test(gc.sh)
at_integration_test(state.sh)
at_integration_test(concurrency.sh)
at_integration_test(crash.sh)
at_integration_test(sandbox_run.sh)
at_integration_test(sandbox_user.sh)
at_integration_test(sandbox_holes.sh)
at_integration_test(sandbox_holes_user.sh)
at_integration_test(limits.sh)
at_integration_test(limits_user.sh)
set_tests_properties(integration.sandbox_run integration.sandbox_user integration.limits
	integration.limits_user integration.sandbox_holes integration.sandbox_holes_user
	PROPERTIES SKIP_RETURN_CODE 77)
at_integration_test(diff.sh)
at_integration_test(gate.sh)
at_integration_test(snapshot.sh)
at_integration_test(checkout.sh)
at_integration_test(datasafety.sh)
at_integration_test(diff_differential.sh)
at_integration_test(hostile.sh)
at_integration_test(net_proxy.sh)
at_integration_test(net_run.sh)
at_integration_test(net_npm.sh)
at_integration_test(net_secrets.sh)
# The network tests route metadata addresses into a namespace of their own:
# never two at once (net_lib.sh also takes a lock).
set_tests_properties(integration.net_proxy integration.net_run integration.net_npm
	integration.net_secrets PROPERTIES
	SKIP_RETURN_CODE 77 RESOURCE_LOCK agenttask_net)
set_tests_properties(integration.net_proxy PROPERTIES
	ENVIRONMENT "AGENTTASK=$<TARGET_FILE:agenttask>;NET_PROXY_DRIVER=$<TARGET_FILE:net_proxy_driver>;ASAN_OPTIONS=detect_leaks=1")
at_integration_test(removal.sh)
at_integration_test(install.sh)
# The installed files and their paths: the plain build's (its label).
set_tests_properties(integration.install PROPERTIES LABELS plain
	ENVIRONMENT "AGENTTASK=$<TARGET_FILE:agenttask>;AT_BUILD_DIR=${CMAKE_BINARY_DIR};ASAN_OPTIONS=detect_leaks=1")
at_integration_test(terminal.sh)
at_integration_test(worktree_place.sh)
at_integration_test(worktree_place_user.sh)
set_tests_properties(integration.worktree_place integration.worktree_place_user
	PROPERTIES SKIP_RETURN_CODE 77)
at_integration_test(runconf.sh)
at_integration_test(runconf_user.sh)
set_tests_properties(integration.runconf integration.runconf_user PROPERTIES SKIP_RETURN_CODE 77)
at_integration_test(sandbox_git.sh)
at_integration_test(sandbox_git_user.sh)
set_tests_properties(integration.sandbox_git integration.sandbox_git_user PROPERTIES
	SKIP_RETURN_CODE 77)
at_integration_test(checkpoint.sh)
at_integration_test(checkpoint_user.sh)
set_tests_properties(integration.checkpoint integration.checkpoint_user PROPERTIES
	SKIP_RETURN_CODE 77)
at_integration_test(layered.sh)
at_integration_test(layered_user.sh)
set_tests_properties(integration.layered integration.layered_user PROPERTIES
	SKIP_RETURN_CODE 77)
at_integration_test(layered_hostile.sh)
at_integration_test(layered_hostile_user.sh)
set_tests_properties(integration.layered_hostile integration.layered_hostile_user PROPERTIES
	SKIP_RETURN_CODE 77)
at_integration_test(run_json.sh)
at_integration_test(run_json_user.sh)
at_integration_test(json_schema.sh)
at_integration_test(json_schema_user.sh)
set_tests_properties(integration.run_json integration.run_json_user integration.json_schema
	integration.json_schema_user PROPERTIES SKIP_RETURN_CODE 77)
at_integration_test(partial.sh)
at_integration_test(partial_user.sh)
at_integration_test(comments.sh)
at_integration_test(comments_user.sh)
set_tests_properties(integration.comments integration.comments_user PROPERTIES
	SKIP_RETURN_CODE 77)
at_integration_test(publish.sh)
at_integration_test(publish_user.sh)
at_integration_test(notify.sh)
at_integration_test(notify_user.sh)
at_integration_test(setup.sh)
at_integration_test(setup_user.sh)
set_tests_properties(integration.publish integration.publish_user integration.notify
	integration.notify_user integration.setup integration.setup_user PROPERTIES
	SKIP_RETURN_CODE 77)
at_integration_test(tasks.sh)
at_integration_test(tasks_user.sh)
set_tests_properties(integration.tasks integration.tasks_user PROPERTIES SKIP_RETURN_CODE 77)

# The suites that exhaust the machine on purpose (fork bombs, OOM kills)
# never run beside the ones that drive a terminal or a long-lived server in
# real time: a lock that ctest -j honours.
set_tests_properties(integration.limits integration.limits_user integration.terminal
	integration.sandbox_holes integration.sandbox_holes_user PROPERTIES RESOURCE_LOCK agenttask_machine)
