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
# Offline: the root's only apt source is a local repository of what the
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
# shellcheck source=SCRIPTDIR/../../vm/lib/vm.sh
source "$here/../../vm/lib/vm.sh" # repo, vm_scratch, vm_cache
# shellcheck source=SCRIPTDIR/../../vm/lib/sysguest.sh
source "$here/../../vm/lib/sysguest.sh"
# shellcheck source=SCRIPTDIR/../lib/inguest.sh
source "$here/../lib/inguest.sh" # inguest_files
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$here/../lib/tap.sh"
cd "$repo" || exit 1

timeout=1200
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
recipe=1

bail() {
	echo "TAP version 13"
	echo "Bail out! $*"
	exit 1
}

version=$(sed -n 's/^#define THPCOW_VERSION[[:space:]]*"\(.*\)"$/\1/p' include/uapi/thpcow.h)
# what inguest_files copies into the guest (make check builds them: make tools)
make -s -C prog wrf >&2 || bail "building prog/wrf failed"
make -s -C tests/prog thpmix >&2 || bail "building tests/prog/thpmix failed"
# the upgrade's version: the next patch level, built from this tree
next_version=$(awk -F. -v OFS=. '{ $NF = $NF + 1; print }' <<<"$version")
host_release=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")

# packages: debs (the two packages) and next_debs (the same as
# next_version) of the root's release, built once a run into $vm_scratch:
# on the host for its own release, else in the release's chroot.
packages() {
	local d=$vm_scratch/deb-$rootfs v as suite=()
	[[ $rootfs == "$host_release" ]] || suite=(SUITE="$rootfs")
	for v in "$version" "$next_version"; do
		as=()
		[[ $v == "$version" ]] || as=(DEB_VERSION="$v")
		[[ -f $d-$v/thpcowctl_${v}_amd64.deb ]] ||
			make -s deb ${suite[@]+"${suite[@]}"} DEB_DIR="$d-$v" ${as[@]+"${as[@]}"} >"$d-$v.log" 2>&1 || {
			tail -n 20 "$d-$v.log"
			echo "make deb ${suite[*]} ${as[*]} failed"
			return 1
		}
	done
	debs=("$d-$version/thpcow-dkms_${version}_all.deb" "$d-$version/thpcowctl_${version}_amd64.deb")
	next_debs=("$d-$next_version/thpcow-dkms_${next_version}_all.deb" "$d-$next_version/thpcowctl_${next_version}_amd64.deb")
	echo "# $rootfs's thpcowctl: Depends: $(dpkg-deb -f "${debs[1]}" Depends)"
}

# suite SUITE: the suite's kernel series, TCG threads and the series of
# its kernel update (none for bookworm, noble), root (vm/rootfs), the
# headers package (a name, or a .deb of a prebuilt series, and the
# libraries its tools link), the headers meta package and the kernel
# command line.
suite() {
	rootfs=$1 headers_deb='' headers_libs=() meta=linux-headers-amd64 append=''
	case $1 in
	bookworm) series=6.1 threads=multi next='' next_also='' ;;
	noble)
		series=ubuntu-6.8 threads=single next='' next_also='' rootfs=bookworm meta='' append=transparent_hugepage=always
		headers_deb=$(compgen -G "$(vm/fetch-kernel "$series")/debs/linux-headers-*.deb" | head -n1)
		# its tools/objtool/objtool links libelf.so.1, scripts/sign-file
		# libcrypto.so.3; Canonical's package depends on their packages,
		# make bindeb-pkg's on none (without libelf DKMS's build fails:
		# objtool cannot start)
		headers_libs=(libelf1 libssl3) ;;
	# as vm/run: QEMU 7.2's multi-threaded TCG and 6.12 do not mix
	# (linux-base: 7.x's kernel needs trixie-backports' newer one)
	trixie) series=6.12 threads=single next=latest next_also=linux-base/trixie-backports ;;
	bullseye) series=5.10 threads=multi next='' next_also='' ;;
	esac
}

# apt_lists_of: apt_lists, the host's for a root of the host's release
# (bookworm, noble's); for another, those of vm/fetch-kernel SERIES (and
# NEXT, with a kernel update) in one directory (after kernels, which
# fetches them: a cold cache has none before).
apt_lists_of() {
	local d=$vm_scratch/apt-$series s
	apt_lists=()
	[[ $rootfs != "$host_release" ]] || return 0
	mkdir -p "$d/lists"
	: >"$d/sources.list"
	for s in "$series" ${next:+"$next"}; do
		cat "$vm_cache/$s/apt/sources.list" >>"$d/sources.list" || return 1
		cp -lf "$vm_cache/$s/apt/lists/"*_Packages* "$vm_cache/$s/apt/lists/"*Release* "$d/lists/" 2>/dev/null
	done
	apt_lists=(-o "Dir::Etc::SourceList=$d/sources.list"
		-o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$d/lists")
}

# needed SUITE BASE: into $vm_scratch/needed-SUITE, the packages (name
# version) that installing the headers (the kernel's and the meta
# package), the two .debs, openssl and mokutil in BASE takes, downloaded into the cache's apt/SUITE if not there yet;
# with a kernel update, into $vm_scratch/later-SUITE what its kernel and
# headers take on top of those (in the root's repository, not installed).
needed() {
	local archives=$vm_cache/apt/$1 log=$vm_scratch/download-$1.log
	mkdir -p "$archives/partial" "$archives/cache"
	: >"$vm_scratch/later-$1"
	apt_base() {
		apt-get -q -y -o APT::Sandbox::User=root "${apt_lists[@]}" -o Dir::Cache="$archives/cache" \
			-o Dir::Cache::archives="$archives" -o Dir::State::status="$2/var/lib/dpkg/status" \
			-o Debug::NoLocking=1 -o APT::Install-Recommends=false "${@:3}" install \
			"${headers_deb:-linux-headers-$release}" ${meta:+"$meta"} ${headers_libs[@]+"${headers_libs[@]}"} openssl mokutil "${debs[@]}" \
			${later:+"linux-image-$later" "linux-headers-$later" $next_also}
	}
	if [[ -n $next_release ]]; then
		later=$next_release apt_base "$1" "$2" --download-only >"$log" 2>&1 || {
			tail -n 20 "$log"
			echo "downloading the kernel update's headers failed"
			return 1
		}
		later=$next_release apt_base "$1" "$2" -s 2>/dev/null |
			sed -n 's/^Inst \([^ ]*\) \(\[[^]]*\] \)\?(\([^ ]*\) .*/\1 \3/p' | grep -v '^thpcow' | sort >"$vm_scratch/all-$1"
	fi
	exec 8>"$vm_cache/$series/.lock"
	flock 8
	# (a local .deb is not downloaded: prepare_root takes it from there)
	[[ -z $headers_deb ]] || cp -f "$headers_deb" "$archives/"
	apt_base "$1" "$2" --download-only >"$log" 2>&1 || {
		tail -n 20 "$log"
		echo "downloading what the packages need failed"
		return 1
	}
	sed -n 's/^Get:[0-9]* [^ ]* [^ ]* [^ ]* \([^ ]*\) .*/# downloaded \1/p' "$log" | grep -v "$version\$"
	# (an upgrade: Inst NAME [OLD] (NEW ...))
	apt_base "$1" "$2" -s 2>/dev/null | sed -n 's/^Inst \([^ ]*\) \(\[[^]]*\] \)\?(\([^ ]*\) .*/\1 \3/p' |
		grep -v '^thpcow' | sort >"$vm_scratch/needed-$1"
	[[ -z $next_release ]] || comm -23 "$vm_scratch/all-$1" "$vm_scratch/needed-$1" >"$vm_scratch/later-$1"
	flock -u 8
}

# prepare_root SUITE BASE: the cached root of SUITE with what
# $vm_scratch/needed-SUITE lists installed from a local repository of it
# (kept there as the root's only apt source): made on the host, under chroot,
# if missing or made from another list, kernel or root. Prints its path.
prepare_root() {
	local s=$1 base=$2 root=$vm_cache/rootfs/$1-packages key tmp f name ver
	key=$({ echo "recipe $recipe $release"; cat "$base/.thpcow-rootfs" "$vm_scratch/needed-$s" "$vm_scratch/later-$s"; } |
		sha256sum | cut -d' ' -f1)
	exec 7>"$root.lock"
	flock 7
	if [[ $(cat "$root/.thpcow-packages" 2>/dev/null) != "$key" ]]; then
		echo "# preparing $root (once: what the packages need, installed on the host)" >&2
		tmp=$root.new
		rm -rf "$tmp"
		cp -a "$base" "$tmp" || return 1
		mkdir -p "$tmp/var/local/thpcow-repo"
		while read -r name ver; do
			f=$vm_cache/apt/$s/${name}_${ver/:/%3a}_
			f=$(compgen -G "$f*.deb" | head -n1)
			[[ -n $f ]] || { echo "$name $ver: not downloaded" >&2; return 1; }
			cp "$f" "$tmp/var/local/thpcow-repo/"
		done < <(cat "$vm_scratch/needed-$s" "$vm_scratch/later-$s")
		# (-m: every version, linux-base's two among them)
		(cd "$tmp/var/local/thpcow-repo" && dpkg-scanpackages -m . /dev/null >Packages 2>/dev/null) || return 1
		rm -f "$tmp"/etc/apt/sources.list.d/*
		echo "deb [trusted=yes] file:/var/local/thpcow-repo ./" >"$tmp/etc/apt/sources.list"
		# Quicker, here and in the guest, and not what is tested: dpkg
		# without fsync, no recommended packages.
		echo force-unsafe-io >"$tmp/etc/dpkg/dpkg.cfg.d/thpcow-test"
		echo 'APT::Install-Recommends "false";' >"$tmp/etc/apt/apt.conf.d/99thpcow-test"
		# no services started, no initramfs made (trixie's headers pull in
		# the kernel's package; the guest boots its own initramfs), none of
		# this host's environment
		printf '#!/bin/sh\nexit 101\n' >"$tmp/usr/sbin/policy-rc.d"
		chmod +x "$tmp/usr/sbin/policy-rc.d"
		# shellcheck disable=SC2016 # for the sh below
		env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 INITRD=No \
			DEBIAN_FRONTEND=noninteractive unshare -m sh -c 'mount -t proc proc "$1/proc" &&
			chroot "$1" apt-get -q update && chroot "$1" apt-get -q -y install $4 &&
			chroot "$1" apt-mark auto $2 && chroot "$1" apt-mark manual openssl mokutil "linux-headers-$3"' \
			sh "$tmp" "$(cut -d' ' -f1 "$vm_scratch/needed-$s" | tr '\n' ' ')" "$release" \
			"$(tr ' ' = <"$vm_scratch/needed-$s" | tr '\n' ' ')" \
			>"$vm_scratch/prepare-$s.log" 2>&1 || {
			tail -n 30 "$vm_scratch/prepare-$s.log" >&2
			return 1
		}
		rm -f "$tmp/usr/sbin/policy-rc.d"
		rm -rf "$tmp"/var/lib/apt/lists/* "$tmp"/var/cache/apt/*.bin "$tmp"/var/cache/apt/archives/*.deb
		echo "$key" >"$tmp/.thpcow-packages"
		rm -rf "$root"
		mv "$tmp" "$root"
	fi
	echo "$root"
}

# image SUITE: $vm_scratch/SUITE.img, a root disk of a copy of the prepared
# root with the two .debs in /var/local/thpcow-debs and the test unit.
image() {
	local s=$1 base prepared root=$vm_scratch/root
	base=$(vm/rootfs "$rootfs") || { echo "no $rootfs root filesystem (vm/rootfs $rootfs)"; return 1; }
	needed "$s" "$base" || return 1
	prepared=$(prepare_root "$s" "$base") || { echo "preparing the $s root failed"; return 1; }
	rm -rf "$root"
	cp -a "$prepared" "$root" || return 1
	mkdir -p "$root/var/local/thpcow-debs/next"
	cp "${debs[@]}" "$root/var/local/thpcow-debs/" || return 1
	cp "${next_debs[@]}" "$root/var/local/thpcow-debs/next/" || return 1
	# each boot runs packages.sh STAGE, STAGE from thpcow_stage= on the
	# kernel's command line ($$: systemd's $)
	# shellcheck disable=SC2016 # the guest's sh expands it
	sysguest_test_unit "$root" tests/guest/packages.sh \
		'for w in $$(cat /proc/cmdline); do case $$w in thpcow_stage=*) s=$${w#*=} ;; esac; done; /opt/thpcow-test/tests/guest/packages.sh $$s >tap-$$s.new 2>&1; mv tap-$$s.new tap-$$s; sync' \
		"${inguest_files[@]}" ||
		return 1
	echo "$version" >"$root/var/lib/thpcow-test/version"
	echo "$next_version" >"$root/var/lib/thpcow-test/next-version"
	echo "$meta" >"$root/var/lib/thpcow-test/headers-meta"
	[[ -z $next_release ]] || echo "$next_release" >"$root/var/lib/thpcow-test/next-release"
	sysguest_disk "$root" "$vm_scratch/$s.img" || return 1
	rm -rf "$root"
}

# boot SUITE STAGE: one boot of SUITE's root disk running packages.sh
# STAGE; its TAP read back with debugfs.
boot() {
	local s=$1 stage=$2 tap=$vm_scratch/tap-$1-$2 rc=0 t0=$SECONDS
	sysguest_boot "$kdir" "$vm_scratch/$s.img" "$timeout" "$threads" "thpcow_stage=$stage${append:+ $append}" || rc=$?
	sysguest_problems "$rc" "$timeout" || return 1
	debugfs -R "dump /var/lib/thpcow-test/tap-$stage $tap" "$vm_scratch/$s.img" >/dev/null 2>&1
	[[ -s $tap ]] || {
		tail -n 40 "$vm_scratch/console.log"
		echo "tests/guest/packages.sh $stage left no results"
		return 1
	}
	sed 's/^/guest: /' "$tap"
	echo "$s $stage: $((SECONDS - t0)) s"
	grep -q '^# Totals: pass:[0-9]* fail:0 skip:0' "$tap"
}

# kernels: kdir and release of the suite's kernel, next_release of its
# kernel update (none for bookworm)
kernels() {
	kdir=$(vm/fetch-kernel "$series") || { echo "no $series kernel (vm/fetch-kernel $series)"; return 1; }
	release=$(cat "$kdir/release") next_release=
	[[ -z $next ]] || next_release=$(cat "$(vm/fetch-kernel "$next")/release") || return 1
}
# install SUITE: the root disk made, and its first boot.
install() {
	local t0=$SECONDS
	suite "$1"
	packages || return 1
	kernels || return 1
	apt_lists_of || return 1
	image "$1" || return 1
	echo "$1: the root disk made in $((SECONDS - t0)) s"
	boot "$1" install
}
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
