#!/usr/bin/env bash
# tests/vm/packages.t [--suite bookworm|trixie|bullseye|noble|all]: the
# packages of `make deb`, each suite's built for it, installed as
# docs/install.md says, in a guest that boots Debian with systemd from a
# root disk of its own (an ext4 image, on virtio-blk) on the suite's own
# kernel: Debian 12 on 6.1 (bookworm, the default, which make check runs),
# Debian 13 on 6.12 (trixie) or Debian 11 on 5.10 (bullseye), or all. Each
# suite's packages are built in its release's chroot (make deb SUITE=, in
# the test's scratch directory), but for the host's own release, whose
# are make deb's on the host (bookworm on Debian 12).
#
# Offline (tests/lib/debroot.sh, shared with tests/vm/ansible.t): the
# root's only apt source is a local repository of what the
# packages need that vm/rootfs lacks (dkms, a compiler, the kernel's
# headers; openssl, with which DKMS makes its signing key, and mokutil, as on
# a host with Secure Boot), resolved by the host's apt against the root's
# dpkg status and downloaded once (the thpcow cache's apt/SUITE). What is
# not under test is installed once, on the host (chroot, no initramfs), into
# a cached copy of the root, rootfs/SUITE-packages, made anew when the
# package list, the kernel release or the root's recipe change: the guest
# then installs only the two .debs, and DKMS builds (and signs) the module
# there, for its running kernel. tests/guest/packages.sh runs in the guest
# as a unit, in three boots of the same root:
#   1. apt-get install (DKMS builds and signs the module), systemctl enable
#      --now thpcow with a cgroup rule, whole THPs in that cgroup, one guest
#      checked as docs/install.md says, systemctl reload of an edited file;
#   2. after the reboot the edited rule is applied; the module reloaded as
#      after an upgrade; docs/install.md's Secure Boot failure (the kernel made
#      to enforce module signatures, which lasts until the next boot);
#   3. an upgrade to the next version (the same tree as THPCOW_VERSION's
#      next patch level: make deb DEB_VERSION=) and the downgrade back, with
#      thpcow.service, the metrics timer, a rule and a process under it
#      running: units, rule, the process's THPs and fresh metrics kept;
#   4. after the next reboot the rule is applied again; disable, unload
#      and apt-get purge leave nothing of thpcow behind.
# trixie, between 3. and 4., a kernel update: trixie-backports' 7.3, the
# kernel and its headers, installed with apt as linux-image-amd64 and
# linux-headers-amd64 bring them (7.x's headers, unlike 6.12's, do not
# depend on the kernel; without it there is no modules.dep, and DKMS from
# 3.1 on then runs no depmod), thpcow's kernel hook builds thpcow for it (DKMS declines 7.x unless widened, so the test
# widens it in /etc/dkms/thpcow.conf as docs/install.md says: the hook's
# decline is tests/host/deb.t's), and the third boot is into 7.3 with the
# rule applied.
# noble (make check-all): Ubuntu 24.04's kernel (vm/run's ubuntu-6.8), its
# headers package from the same folder (make bindeb-pkg's, which depends on
# nothing: Canonical's linux-headers-VER-generic needs its common half,
# linux-headers-VER, and Ubuntu's toolchain, which a Debian root cannot
# install), in the Debian 12 root (no Ubuntu userland can be made here:
# Ubuntu's archive is not reachable), booted with transparent_hugepage=always
# (Ubuntu's default is madvise); no headers meta package (Ubuntu's
# linux-headers-generic); three boots as bookworm's.
# Each boot is one case; the guest's own TAP is shown. A kernel warning,
# oops or lockup fails it.
#
# Measured on the 2-core machine with other TCG guests running (load 2-5),
# the cached root ready: bookworm about 6 minutes (apt-get install with
# DKMS's build 2.5 of them), trixie 9 to 14 (single-threaded TCG, as
# vm/run for 6.12: DKMS's build alone 2.5 to 5), so make check runs
# bookworm only, and make check-all trixie, bullseye and noble too (their
# long cases; noble about 9 minutes at load 7, single-threaded TCG). Cold,
# add the downloads (about 45 packages), vm/rootfs SUITE and preparing the
# root (about a minute for bookworm, two for trixie), and for trixie and
# bullseye make deb SUITE= (a chroot's build dependencies installed once,
# then about a minute for each of the two versions).
# bullseye (make check-all): Debian 11's packages (DKMS 2.8, systemd 247,
# a thpcowctl without trace: docs/install.md) in a Debian 11 root on 5.10,
# three boots: install, upgrade (right after it) and purge; no reboot
# boot, as DKMS 2.8 signs no module (Secure Boot's checks do not apply).
# Measured at load 6-8: install 6 minutes (DKMS's build about 4 of them),
# upgrade 12 (two DKMS builds), purge 1.5; 21 in all, cold (the chroot's
# build dependencies, the downloads, the root prepared).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../lib/debroot.sh
source "$here/../lib/debroot.sh" # repo, vm_scratch, tap_run, install, boot; the settings below

# make check runs bookworm's boots; the others' are long (make check-all)
suites=(bookworm) long_suites=(trixie bullseye noble)
if [[ ${1:-} == --suite ]]; then
	case ${2:-} in
	bookworm | trixie | bullseye | noble) suites=("$2") long_suites=() ;;
	all) suites=(bookworm trixie bullseye noble) long_suites=() ;;
	*) echo "usage: packages.t [--suite bookworm|trixie|bullseye|noble|all]" >&2; exit 2 ;;
	esac
fi
# Bump when what prepare_root puts in the cached root changes.
debroot_recipe=1 debroot_next=1 debroot_guest=tests/guest/packages.sh
# again SUITE STAGE PREVIOUS [SERIES]: a later boot, if the one before it
# ran, of the suite's kernel or SERIES's.
again() {
	suite "$1"
	kernels || return 1
	[[ -z ${4:-} ]] || threads=single kdir=$(vm/fetch-kernel "$4") || return 1
	[[ -s $vm_scratch/tap-$1-$3 ]] || skip "the $3 boot did not run"
	boot "$1" "$2"
}

# SUITE's boots, as one case each; trixie's third boots the kernel update;
# bullseye has no reboot boot
for s in "${suites[@]}" "${long_suites[@]}"; do
	before_purge=upgrade before_upgrade=reboot
	[[ $s != trixie ]] || before_purge="update latest"
	[[ $s != bullseye ]] || before_upgrade=install
	eval "install_$s() { install $s; }; reboot_$s() { again $s reboot install; }
		upgrade_$s() { again $s upgrade $before_upgrade; }
		update_$s() { again $s update upgrade; }
		purge_$s() { again $s purge $before_purge; rm -f \"\$vm_scratch/$s.img\"; }"
done
# boots SUITE...: the cases of each SUITE
boots() {
	local s
	for s; do
		echo "install_$s" # apt-get install, DKMS, enable --now, whole THPs, one guest, reload
		[[ $s == bullseye ]] || echo "reboot_$s" # the rule after a reboot, the module reloaded, Secure Boot's failure
		echo "upgrade_$s" # N -> N+1 and back: units, rule, THPs, fresh metrics kept
		[[ $s != trixie ]] || echo "update_$s" # a second kernel installed, DKMS builds for it
		echo "purge_$s"   # the rule after a reboot (trixie: into 7.3); purge leaves nothing
	done
}
mapfile -t cases < <(boots "${suites[@]}")
mapfile -t long_cases < <(boots "${long_suites[@]}")
tap_run "${cases[@]}" --long "${long_cases[@]}"
