#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host tests of thpcowctl's operations side, without a module
# (tools/thpcowctl/tests/test_ops.c, TAP 13): what reload and status decide (a QEMU
# still receiving an incoming migration, in a /proc made of files; the
# loaded module's version against the installed one's), reload's command
# line, thpcow.conf's "cgroup?" lines. A reload in a guest is
# tests/guest/packages.sh's, cgroup? at boot tests/guest/systemd.sh's.
set -eu

dir="$(cd "$(dirname "$0")/../.." && pwd)/tools/thpcowctl"
if ! make -s -C "$dir" thpcowctl test_ops >&2; then
	echo "TAP version 13"
	echo "Bail out! thpcowctl or test_ops does not build"
	exit 1
fi
exec "$dir/test_ops" "$dir/thpcowctl"
