#!/usr/bin/env bash
# tests/vm/native.t: on trixie-backports' 7.x, which gives whole THPs by
# itself, thpcow.service is skipped (ExecCondition=), inactive and not
# failed, with one journal line that says why (tests/vm/systemd.t --kernel latest).
exec "$(dirname "$0")/systemd.t" --kernel latest
