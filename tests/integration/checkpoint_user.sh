#!/usr/bin/env bash
# The checkpoint and rewind suite (checkpoint.sh) again as an ordinary user
# (uid 65534 when run by root), the way sandbox_user.sh runs the sandbox suite.
AT_USER_SUITE=checkpoint.sh exec bash "$(dirname "$0")/sandbox_user.sh"
