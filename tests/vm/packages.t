#!/usr/bin/env bash
# tests/vm/packages.t: the packages of `make deb`, installed as the README's
# "Install on a KVM host" says, in a guest that boots Debian 12 with systemd
# from a root disk of its own (an ext4 image of a copy of tests/vm/rootfs,
# on virtio-blk) on its stock 6.1,
# offline: the host puts the two .deb files and a local apt repository of
# what they need that the root lacks (dkms, a compiler, the kernel's headers;
# downloaded once, kept under the thpcow cache in apt/bookworm) into the
# root, as its only apt source. tests/guest/packages.sh runs in the guest as
# a unit, in two boots of the same root:
#   1. apt-get install (DKMS builds the module), systemctl enable --now thpcow
#      with a cgroup rule, whole THPs in that cgroup, one guest checked as
#      the README says, systemctl reload of an edited file;
#   2. after the reboot the edited rule is applied; disable, unload and
#      apt-get purge leave nothing of thpcow behind.
# Each boot is one case; the guest's own TAP is shown. A kernel warning,
# oops or lockup fails it. About 25 minutes on a loaded 2-core machine
# (apt and DKMS's compile in TCG).
#
# tests/vm/packages.t --suite trixie: the same in Debian 13 on its 6.12
# (tests/vm/rootfs trixie; trixie's package lists that tests/vm/fetch-kernel
# 6.12 keeps). Not yet part of make check: there apt also installs
# linux-image and initramfs-tools, and the first boot outlasted its 1500 s
# under single-threaded TCG on a loaded machine.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../lib/vm.sh
source "$here/../lib/vm.sh" # repo, vm_scratch, vm_cache
# shellcheck source=SCRIPTDIR/../lib/sysguest.sh
source "$here/../lib/sysguest.sh"
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$here/../lib/tap.sh"
cd "$repo" || exit 1

timeout=1500
suite=bookworm
[[ ${1:-} != --suite ]] || suite=$2
case $suite in
bookworm) series=6.1 threads=multi apt_lists=() ;;
# as tests/vm/run: QEMU 7.2's multi-threaded TCG and 6.12 do not mix
trixie) series=6.12 threads=single apt_lists=(-o "Dir::Etc::SourceList=$vm_cache/6.12/apt/sources.list"
	-o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$vm_cache/6.12/apt/lists") ;;
*) echo "usage: packages.t [--suite bookworm|trixie]" >&2; exit 2 ;;
esac
bail() {
	echo "TAP version 13"
	echo "Bail out! $*"
	exit 1
}

version=$(sed -n 's/^#define THPCOW_VERSION[[:space:]]*"\(.*\)"$/\1/p' include/uapi/thpcow.h)
kdir=$(tests/vm/fetch-kernel "$series") || bail "no $series kernel (tests/vm/fetch-kernel $series)"
release=$(cat "$kdir/release")
base=$(tests/vm/rootfs "$suite") || bail "no $suite root filesystem (tests/vm/rootfs $suite)"
make -s deb >"$vm_scratch/deb.log" 2>&1 || {
	tail -n 20 "$vm_scratch/deb.log" >&2
	bail "make deb failed"
}
make -s -C tests/prog wrf >&2 || bail "building tests/prog/wrf failed"

root=$vm_scratch/root
cp -a "$base" "$root" || bail "cannot copy $base"
debs=$root/var/local/thpcow-debs
mkdir -p "$debs"
cp "build/deb/thpcow-dkms_${version}_all.deb" "build/deb/thpcowctl_${version}_amd64.deb" "$debs/"

# What installing them needs that the root lacks, resolved against the
# root's own dpkg status by the host's apt, with the suite's lists (the
# host's for bookworm; for trixie those of tests/vm/fetch-kernel 6.12, under
# its lock).
archives=$vm_cache/apt/$suite
mkdir -p "$archives/partial" "$archives/cache"
apt_root() {
	apt-get -q -y -o APT::Sandbox::User=root "${apt_lists[@]}" -o Dir::Cache="$archives/cache" \
		-o Dir::Cache::archives="$archives" -o Dir::State::status="$root/var/lib/dpkg/status" \
		-o Debug::NoLocking=1 -o APT::Install-Recommends=false "$@" install "linux-headers-$release" \
		"$debs/thpcow-dkms_${version}_all.deb" "$debs/thpcowctl_${version}_amd64.deb"
}
exec 8>"$vm_cache/$series/.lock"
flock 8
apt_root --download-only >"$vm_scratch/download.log" 2>&1 || {
	tail -n 20 "$vm_scratch/download.log" >&2
	bail "downloading what the packages need failed"
}
sed -n 's/^Get:[0-9]* [^ ]* [^ ]* [^ ]* \([^ ]*\) .*/\1/p' "$vm_scratch/download.log" |
	sed 's/^/# downloaded /' >&2
# the local repository: every .deb apt would install, thpcow's left out
apt_root -s 2>/dev/null | sed -n 's/^Inst \([^ ]*\) .*/\1/p' | grep -v '^thpcow' >"$vm_scratch/needed"
flock -u 8
repo_dir=$root/var/local/thpcow-repo
mkdir -p "$repo_dir"
while read -r p; do
	f=$(find "$archives" -maxdepth 1 -name "${p}_*.deb" | sort -V | tail -n1)
	[[ -n $f ]] || bail "$p: not downloaded"
	cp "$f" "$repo_dir/"
done <"$vm_scratch/needed"
(cd "$repo_dir" && dpkg-scanpackages . /dev/null >Packages 2>/dev/null) || bail "dpkg-scanpackages failed"
echo "# the local repository: $(wc -l <"$vm_scratch/needed") packages, $(du -sh "$repo_dir" | cut -f1)" >&2
rm -f "$root"/etc/apt/sources.list.d/*
echo "deb [trusted=yes] file:/var/local/thpcow-repo ./" >"$root/etc/apt/sources.list"

# Quicker under TCG, and not what is tested: dpkg without fsync, no
# recommended packages.
echo force-unsafe-io >"$root/etc/dpkg/dpkg.cfg.d/thpcow-test"
echo 'APT::Install-Recommends "false";' >"$root/etc/apt/apt.conf.d/99thpcow-test"
# each boot runs packages.sh STAGE, STAGE from thpcow_stage= on the kernel's
# command line ($$: systemd's $)
# shellcheck disable=SC2016 # the guest's sh expands it
sysguest_test_unit "$root" tests/guest/packages.sh \
	'for w in $$(cat /proc/cmdline); do case $$w in thpcow_stage=*) s=$${w#*=} ;; esac; done; /opt/thpcow-test/tests/guest/packages.sh $$s >tap-$$s.new 2>&1; mv tap-$$s.new tap-$$s; sync' ||
	bail "systemctl --root enable failed"
echo "$version" >"$root/var/lib/thpcow-test/version"
img=$vm_scratch/root.img
sysguest_disk "$root" "$img" || bail "cannot make the root disk"
rm -rf "$root"

# boot STAGE: one boot of the root disk running packages.sh STAGE; its TAP
# read back with debugfs.
boot() {
	local stage=$1 tap=$vm_scratch/tap-$1 rc=0
	sysguest_boot "$kdir" "$img" "$timeout" "$threads" "thpcow_stage=$stage" || rc=$?
	sysguest_problems "$rc" "$timeout" || return 1
	debugfs -R "dump /var/lib/thpcow-test/tap-$stage $tap" "$img" >/dev/null 2>&1
	[[ -s $tap ]] || {
		tail -n 40 "$vm_scratch/console.log"
		echo "tests/guest/packages.sh $stage left no results"
		return 1
	}
	sed 's/^/guest: /' "$tap"
	grep -q '^# Totals: pass:[0-9]* fail:0 skip:0' "$tap"
}

install_enable_reload() { boot install; }
reboot_purge() {
	[[ -s $vm_scratch/tap-install ]] || skip "the first boot did not run"
	boot reboot
}

cases=(
	install_enable_reload # apt-get install, DKMS, enable --now, whole THPs, one guest, reload
	reboot_purge          # the rule after a reboot; purge leaves nothing
)
tap_run "${cases[@]}"
