at_unit_test(test_scan unit/git/test_scan.c at_git)
at_unit_test(test_index_file unit/git/test_index_file.c at_git)
at_unit_test(test_config unit/git/test_config.c at_git)
at_unit_test(test_dircache unit/git/test_dircache.c at_git)
at_unit_test(test_apply_paths unit/git/test_apply_paths.c at_git)
# A kill before each rename, made deterministic by wrapping them.
target_link_options(test_apply_paths PRIVATE -Wl,--wrap=renameat,--wrap=renameat2)
# The task is made by app/lifecycle.c, as `new` makes it.
at_unit_test(test_snapshot unit/git/test_snapshot.c at_app)
at_unit_test(test_index_update unit/git/test_index_update.c at_git)
# The racy-timestamp window of the scan's directory cache crossed by moving
# the clock (tests/unit/clock.h), not by sleeping.
target_link_options(test_scan PRIVATE -Wl,--wrap=clock_gettime)
at_unit_test(test_linemap unit/git/test_linemap.c at_git)
# Layered tasks' state on real overlays, and again as uid 65534 when run by root;
# 77 where an overlay cannot be mounted in a user namespace.
at_unit_test(test_layerstate unit/git/test_layerstate.c at_git)
set_tests_properties(unit.test_layerstate PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
# A task's checkpoints on a real repository, against git's own write-tree; the
# task is made by app/lifecycle.c, as `new` makes it.
at_unit_test(test_checkpoint unit/git/test_checkpoint.c at_app)
# Commits signed a minute apart each, without waiting (libgit2's time()).
target_link_options(test_checkpoint PRIVATE -Wl,--wrap=time)
