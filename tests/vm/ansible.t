#!/usr/bin/env bash
# tests/vm/ansible.t: the Ansible role (dist/ansible, README.md's "Ansible")
# run by Debian's own ansible (bookworm's 7.7 on ansible-core 2.14) with
# `ansible-playbook -c local` in a Debian 12 guest on 6.1, booted with
# systemd from a root disk of its own, offline, as tests/vm/packages.t
# boots it (tests/lib/debroot.sh: a local apt repository of what the
# packages need, all of it installed once on the host into a cached copy
# of the root, rootfs/bookworm-ansible; here with ansible, python3-apt for
# its apt module and sudo for the play's become). The role installs the
# two .debs of `make deb` (thpcow_debs): DKMS builds the module in the
# guest. tests/guest/ansible.sh runs the plays and their checks in one
# boot: first run changed > 0, second run changed=0, a changed variable
# runs exactly the drop-in and the reload handler, an invalid mode and a
# cgroup that does not exist fail the play and change nothing, thpcowctl
# check OK. Its guest's TAP is shown; a kernel warning, oops or lockup
# fails it.
#
# Long (make check-all): measured at load 10-12 on the 2-core machine, with
# the cached root ready, 37 minutes: the root disk 3.5 (make deb, the
# image), the guest 33, of which the first run 18 (the DKMS build, and
# every task's Python under TCG), the others 1 to 5 each; cold, add the
# root's preparation (a minute: ansible's 260 MB installed under chroot).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../lib/debroot.sh
source "$here/../lib/debroot.sh" # tap_run, install; the settings below

# Bump when what prepare_root puts in the cached root changes.
debroot_name=ansible debroot_recipe=1 debroot_extra=(ansible python3-apt sudo)
debroot_guest=tests/guest/ansible.sh
mapfile -t debroot_files < <(find dist/ansible -type f | sort)
debroot_timeout=3600 # (33 minutes measured at load 10-12)

install_bookworm() { install bookworm; }
long_cases=(
	install_bookworm # the role's runs: install, again (no change), a changed rule, two refused
)
tap_run --long "${long_cases[@]}"
