#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host tests of thpcowctl (no kernel module needed): builds the tool and its
# test program, then runs the test program, which prints TAP 13.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
dir="$top/tools/thpcowctl"

# the build's own output would not be TAP: keep it off stdout
if ! make -s -C "$dir" thpcowctl test_cli test_fakedev.so >&2; then
	echo "TAP version 13"
	echo "Bail out! thpcowctl does not build"
	exit 1
fi
exec "$dir/test_cli" "$dir/thpcowctl"
