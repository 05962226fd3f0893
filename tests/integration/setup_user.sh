#!/usr/bin/env bash
# The setup suite (setup.sh) again as an ordinary user (uid 65534 when run
# by root), the way sandbox_user.sh runs the sandbox suite.
AT_USER_SUITE=setup.sh exec bash "$(dirname "$0")/sandbox_user.sh"
