at_unit_test(test_net_rules unit/net/test_rules.c at_net)
at_unit_test(test_net_addr unit/net/test_addr.c at_net)
at_unit_test(test_net_wire unit/net/test_wire.c at_net)
at_unit_test(test_net_http1 unit/net/test_http1.c at_net)
