# The suites that run again on layered tasks (tests/CMakeLists.txt,
# at_layered_suite): one line each.
at_layered_suite(layered)
at_layered_suite(run_json)
at_layered_suite(run_json_user)
at_layered_suite(json_schema)
at_layered_suite(json_schema_user)
at_layered_suite(snapshot)
at_layered_suite(diff_differential)
at_layered_suite(gate)
at_layered_suite(accept)
at_layered_suite(diff)
at_layered_suite(checkout)
