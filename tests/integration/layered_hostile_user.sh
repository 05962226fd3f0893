#!/usr/bin/env bash
# The layered red-team suite (layered_hostile.sh) again as an ordinary user
# (uid 65534 when run by root), the way sandbox_user.sh runs the sandbox suite.
AT_USER_SUITE=layered_hostile.sh exec bash "$(dirname "$0")/sandbox_user.sh"
