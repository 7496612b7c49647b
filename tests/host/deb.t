#!/usr/bin/env bash
# tests/host/deb.t: the Debian packages. `make deb` builds thpcow-dkms and
# thpcowctl into build/deb/ from a copy of the tree; each holds exactly the
# files, with their modes, that `make list-installed` lists for the install
# target debian/rules calls, and debhelper's (thpcow-dkms: make
# install-dkms's, a dkms.conf with a literal version, no deprecated keys and
# no AUTOINSTALL, the kernel hooks as links; thpcowctl: make install-tools'
# with debian/rules' directories, the units with dh_installsystemd's
# scripts, the /etc files, the libvirt hook's too, as conffiles);
# lintian finds no error and only the warnings listed here; the packaged
# source builds with DKMS for bookworm's 6.1 headers, where a compiler
# warning stays a warning (an error in make check), and DKMS declines a
# series thpcow.service would skip; a kernel update never fails (the
# kernel hooks, Debian's and thpcow's, with bookworm's DKMS, on a declined
# kernel and on a failed build); make deb SUITE= builds Debian 11's and
# 13's packages in their chroots, with the same files and their releases'
# libraries. Needs the build dependencies (make deps) and, for DKMS and the
# chroots, root.
# DKMS builds with make -j, a job a core: tests/check -j counts both.
# jobs: 2
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"
cd "$repo" || exit 1

release=6.1.0-57-amd64
headers=/usr/src/linux-headers-$release
version=$(sed -n 's/^#define THPCOW_VERSION[[:space:]]*"\(.*\)"$/\1/p' include/uapi/thpcow.h)
debs=$repo/build/deb
# vm/kbuild's chroots
vm_chroots=${XDG_CACHE_HOME:-$HOME/.cache}/thpcow/chroot
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The lintian warnings kept, and why: none (lintian -I --pedantic adds one
# informational tag, package-supports-alternative-init-but-no-init.d-script:
# there is no init.d script, thpcow.service needs systemd's ExecCondition=).
lintian_kept=''

need() { command -v "$1" >/dev/null || skip "no $1 (make deps)"; }
# contents DEB: "PERMS PATH" of each file in DEB, directories left out
contents() { dpkg-deb -c "$1" | awk '$1 !~ /^d/ { print $1, $6 }' | sort -k2; }
# listed TARGET [VAR=VALUE...]: "PERMS ./PATH" of each file the Makefile's
# TARGET (a regular expression) installs (make list-installed), as contents prints them
listed() {
	local target=$1
	shift
	make -s list-installed "$@" | awk -v t="$target" '$1 ~ "^(" t ")$" {
		p = "-"
		for (i = 2; i <= 4; i++) p = p substr("-----x-w--wxr--r-xrw-rwx", substr($2, i, 1) * 3 + 1, 3)
		if ($2 == "0777") p = "l" substr(p, 2) # a link
		print p, "." $4 }'
}
# the files debhelper adds to PACKAGE; thpcowctl's docs also docs/install.md
# (debian/thpcowctl.docs), compressed
dh_docs() {
	printf -- '-rw-r--r-- ./usr/share/doc/%s/%s\n' "$1" changelog.gz "$1" copyright "$1" README.Debian
	[[ $1 != thpcowctl ]] || printf -- '-rw-r--r-- ./usr/share/doc/%s/%s\n' "$1" install.md.gz
}
deb_of() { echo "$debs/$1_${version}_$2.deb"; }

make_deb() {
	need dpkg-buildpackage
	make -s deb >"$tmp/deb.log" 2>&1 || {
		tail -n 30 "$tmp/deb.log"
		return 1
	}
	check_eq "$(cd "$debs" && find . -maxdepth 1 -name '*.deb' | sort)" "./thpcow-dkms_${version}_all.deb
./thpcowctl-dbgsym_${version}_amd64.deb
./thpcowctl_${version}_amd64.deb" "the packages in build/deb"
	check_eq "$(dpkg-parsechangelog -l debian/changelog -S Version)" "$version" \
		"debian/changelog's version (THPCOW_VERSION)"
	# (the suites' directories, suite_packages', are not this build's)
	check_eq "$(find build -mindepth 1 -maxdepth 2 ! -regex 'build/deb/\(bullseye\|bookworm\|trixie\)' ! -path 'build/rpm*' | sort)" "build/deb
build/deb/thpcow-dkms_${version}_all.deb
build/deb/thpcow_${version}_amd64.buildinfo
build/deb/thpcow_${version}_amd64.changes
build/deb/thpcowctl-dbgsym_${version}_amd64.deb
build/deb/thpcowctl_${version}_amd64.deb" "what make deb left in build/"
}

dkms_package() {
	local deb src=./usr/src/thpcow-$version
	deb=$(deb_of thpcow-dkms all)
	[[ -f $deb ]] || skip "no $deb (make_deb failed)"
	local dirs
	# shellcheck disable=SC2016 # make expands it
	read -ra dirs <<<"$(make -s -f debian/rules --eval 'deb.t-dirs: ; @echo $(debian_dirs)' deb.t-dirs)"
	check_eq "$(contents "$deb")" "$( (dh_docs thpcow-dkms && listed 'install-dkms(-src)?' "${dirs[@]}") | sort -k2)" \
		"the files and their modes: make install-dkms's (make list-installed)"
	check_eq "$(dpkg-deb -f "$deb" Architecture)" all "Architecture"
	check_match "$(dpkg-deb -f "$deb" Depends)" '^dkms ' "Depends"
	check_match "$(dpkg-deb -f "$deb" Recommends)" '(^|, )linux-headers-amd64 ' "Recommends: the headers meta package"
	dpkg-deb -e "$deb" "$tmp/dkms-ctrl"
	check_match "$(cat "$tmp/dkms-ctrl/postinst")" "version=$version"$'\n'".*/usr/libexec/thpcow/dkms-kernel-hook " \
		"postinst: the kernel hook builds it"
	check_match "$(cat "$tmp/dkms-ctrl/prerm")" "dkms remove -m thpcow -v \"\\\$version\" --all" "prerm: DKMS removes it"
	dpkg-deb -x "$deb" "$tmp/dkms-root"
	check_eq "$(readlink "$tmp/dkms-root/etc/kernel/postinst.d/thpcow" "$tmp/dkms-root/etc/kernel/header_postinst.d/thpcow")" \
		"/usr/libexec/thpcow/dkms-kernel-hook
/usr/libexec/thpcow/dkms-kernel-hook" "the kernel hooks"
	check_match "$(cat "$tmp/dkms-root/usr/libexec/thpcow/dkms-kernel-hook")" $'\nversion='"$version"$'\n' \
		"the hook's version"
	local conf=$tmp/dkms-root/$src/dkms.conf
	check_eq "$(grep '^PACKAGE_VERSION=' "$conf")" "PACKAGE_VERSION=\"$version\"" "a literal PACKAGE_VERSION"
	check_eq "$(grep '^[[:space:]]*AUTOINSTALL' "$conf")" "" "no AUTOINSTALL (DKMS's autoinstall leaves it alone)"
	check_eq "$(grep -E '^[[:space:]]*(CLEAN|REMAKE_INITRD|MODULES_CONF|PATCH_MATCH|DEST_MODULE_NAME|OBSOLETE_BY)\b' "$conf")" \
		"" "deprecated keys"
	# shellcheck disable=SC2016 # a literal $(
	check_eq "$(grep -c '\$(' "$conf")" 0 "commands run while DKMS reads dkms.conf"
	# The series DKMS builds for: module/Kbuild's that split (not 7.x),
	# Debian's and Ubuntu's, and the versions of RHEL's releases.
	check_eq "$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\^(\(.*\))\\\.\"$/\1/p' "$conf" | sed 's/\\//g; s/|/ /g')" \
		"$({ sed -n 's/^thpcow-\(ubuntu-\)\{0,1\}series := //p' module/Kbuild
			sed -n 's/^thpcow-rhel-releases := //p' module/Kbuild | sed 's/[0-9.]*://g'; } |
			tr ' ' '\n' | grep -v '^7\.' | sort -uV | paste -sd ' ')" \
		"BUILD_EXCLUSIVE_KERNEL: module/Kbuild's series before 6.13"
}

ctl_package() {
	local deb dirs ctl paths want
	deb=$(deb_of thpcowctl amd64)
	[[ -f $deb ]] || skip "no $deb (make_deb failed)"
	# make install-tools with the directories debian/rules gives it; the man
	# pages compressed (dh_compress)
	# shellcheck disable=SC2016 # make expands it
	read -ra dirs <<<"$(make -s -f debian/rules --eval 'deb.t-dirs: ; @echo $(debian_dirs)' deb.t-dirs)"
	check_match "${dirs[*]}" "PREFIX=/usr" "debian/rules' debian_dirs"
	ctl=$(listed install-tools "${dirs[@]}")
	check_eq "$(contents "$deb")" "$( (dh_docs thpcowctl && awk '$2 ~ "^\\./usr/share/man/" { $2 = $2 ".gz" } 1' <<<"$ctl") |
		sort -k2)" "the files and their modes: make install-tools' (make list-installed)"
	dpkg-deb -e "$deb" "$tmp/ctl"
	check_eq "$(sort "$tmp/ctl/conffiles")" "$(awk '$2 ~ "^\\./etc/" && $1 !~ /^l/ { print substr($2, 2) }' <<<"$ctl" |
		sort)" "conffiles: the files under /etc (not the links)"
	dpkg-deb -x "$deb" "$tmp/ctl-root"
	check_eq "$(cd "$tmp/ctl-root" && find . -type f -exec md5sum {} + | awk '{ print $1 }' | sort | uniq -d)" \
		"" "files shipped twice (the conffiles need no copies in examples/)"
	check_eq "$(grep -ho "deb-systemd-helper purge '[^ ]*'" "$tmp/ctl/postrm" | sort)" \
		"deb-systemd-helper purge 'thpcow-metrics.timer'
deb-systemd-helper purge 'thpcow.service'" "postrm: dh_installsystemd forgets the units on purge"
	# An upgrade leaves the units as they were (docs/install.md,
	# "Upgrades"): nothing stopped before it (the preinst), thpcow.service
	# never stopped nor restarted, the metrics timer restarted after it if
	# it runs (the postinst)
	check_eq "$(cat "$tmp"/ctl/*inst "$tmp"/ctl/prerm | grep -o 'deb-systemd-invoke [a-z-]* .*>')" \
		"deb-systemd-invoke try-restart 'thpcow-metrics.service' 'thpcow-metrics.timer' >
deb-systemd-invoke stop thpcow-metrics.timer thpcow-metrics.service >" \
		"the units the maintainer scripts stop or start: the metrics' (try-restart on upgrade, stop on remove)"
	check_match "$(cat "$tmp/ctl/postinst")" $'if \\[ -n "\\$2" \\]; then\n\t*deb-systemd-invoke try-restart ' \
		"postinst: the try-restart on upgrade only"
	check_match "$(cat "$tmp/ctl/postrm")" $'\nremove | purge)\n\trm -f /var/lib/prometheus/node-exporter/thpcow\\*\\.prom ' \
		"postrm: the metrics file goes at remove and purge"
	check_match "$(cat "$tmp/ctl/prerm")" 'deb-systemd-invoke stop thpcow-metrics.timer ' \
		"prerm: the metrics timer stopped at remove"
	# a conffile, so that deleting it to turn the hook off lasts, which
	# runs the hook where the package puts it
	check_match "$(cat "$tmp/ctl/conffiles")" $'(^|\n)/etc/libvirt/hooks/qemu.d/thpcow(\n|$)' \
		"the libvirt hook where libvirt >= 6.5 reads it: a conffile"
	check_match "$(cat "$tmp/ctl-root/etc/libvirt/hooks/qemu.d/thpcow")" \
		$'\nfor hook in /usr/libexec/thpcow/libvirt-hook-qemu ' "... that runs /usr/libexec/thpcow/libvirt-hook-qemu"
	# where Debian wants them, written out once more on purpose: the list
	# above is the Makefile's, and a wrong directory there would pass it
	paths=$(contents "$deb" | awk '{ print $2 }')
	for want in ./usr/sbin/thpcowctl ./lib/systemd/system/thpcow.service \
		./lib/systemd/system/thpcow-collapse@.service ./usr/share/man/man8/thpcowctl.8.gz \
		./lib/systemd/system/thpcow-metrics.service ./lib/systemd/system/thpcow-metrics.timer \
		./etc/libvirt/hooks/qemu.d/thpcow ./usr/libexec/thpcow/libvirt-hook-qemu \
		./usr/share/bash-completion/completions/thpcowctl ./etc/thpcow.conf; do
		grep -qFx "$want" <<<"$paths" || { echo "$deb has no $want"; return 1; }
	done
	check_match "$(dpkg-deb -f "$deb" Depends)" 'libkmod2' "Depends (shlibs)"
	check_match "$(dpkg-deb -f "$deb" Depends)" 'libsmartcols1' "Depends (shlibs): libsmartcols"
}

lintian_clean() {
	local out rc=0
	need lintian
	[[ -f $debs/thpcow_${version}_amd64.changes ]] || skip "no .changes (make_deb failed)"
	out=$(lintian --tag-display-limit 0 "$debs/thpcow_${version}_amd64.changes" 2>&1) || rc=$?
	out=$(grep -v 'running with root privileges is not recommended' <<<"$out" || true)
	[[ -z $out ]] || while read -r l; do echo "lintian: $l"; done <<<"$out"
	check_eq "$(grep '^E:' <<<"$out")" "" "lintian errors"
	# 0 also says it ran to its end: a lintian that died prints no tag
	check_eq "$rc" 0 "lintian's exit status"
	check_eq "$(grep '^W:' <<<"$out" | sed 's/^W: [^ ]* //' | sort)" "$lintian_kept" "lintian warnings"
}

# dkms build DEB's source in a private DKMS tree (never /var/lib/dkms).
dkms_private() {
	env -u THPCOW_WERROR dkms build -m thpcow -v "$version" --sourcetree "$tmp/pkg/usr/src" \
		--dkmstree "$tmp/dkmstree" "$@"
}
dkms_ready() {
	need dkms
	[[ $(id -u) == 0 ]] || skip "dkms needs root"
	[[ -d $headers ]] || skip "no $headers (make deps)"
	[[ -f $(deb_of thpcow-dkms all) ]] || skip "no thpcow-dkms package (make_deb failed)"
	[[ -d $tmp/pkg ]] || dpkg-deb -x "$(deb_of thpcow-dkms all)" "$tmp/pkg"
}

dkms_builds_package() {
	local ko
	dkms_ready
	mkdir -p "$tmp/dkmstree"
	dkms_private -k "$release" --kernelsourcedir "$headers" >"$tmp/dkms.log" 2>&1 || {
		cat "$tmp/dkms.log" "$tmp/dkmstree/thpcow/$version/build/make.log"
		return 1
	}
	ko=$(find "$tmp/dkmstree/thpcow/$version/$release" -name 'thpcow.ko*' | head -n1)
	check_eq "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" "$release" "the module's kernel"
	check_eq "$(modinfo -F version "$ko")" "$version" "its version"
	check_eq "$(grep -i 'deprecat' "$tmp/dkms.log")" "" "deprecation notices from DKMS"
}

# A compiler warning (here a #warning added to the packaged main.c) is a
# warning in a user's DKMS build, and an error in the project's own builds.
warnings_not_errors() {
	local src=$tmp/warn/usr/src/thpcow-$version log
	dkms_ready
	mkdir -p "$tmp/warn" "$tmp/dkmstree3"
	cp -r "$tmp/pkg/usr" "$tmp/warn/"
	echo '#warning "deb.t: a new compiler warning"' >>"$src/module/main.c"
	env -u THPCOW_WERROR dkms build -m thpcow -v "$version" --sourcetree "$tmp/warn/usr/src" \
		--dkmstree "$tmp/dkmstree3" -k "$release" --kernelsourcedir "$headers" >"$tmp/warn.log" 2>&1 || {
		cat "$tmp/warn.log"
		return 1
	}
	log=$(find "$tmp/dkmstree3" -name make.log | head -n1)
	check_match "$(cat "$log")" "warning: #warning \"deb.t: a new compiler warning\"" "DKMS's make.log"
	if THPCOW_WERROR=1 make -s -C "$headers" M="$src/module" modules >"$tmp/werror.log" 2>&1; then
		echo "THPCOW_WERROR=1: the module built despite the warning"
		return 1
	fi
	check_match "$(cat "$tmp/werror.log")" "error: #warning" "THPCOW_WERROR=1 (make check)"
}

# The packaged source with bookworm's DKMS for Ubuntu's 6.8 and 5.15 and
# RHEL's 9.6 and 10.0, against their headers packages (their shared folders
# in vm/series) unpacked: make bindeb-pkg's, which depend on nothing, where
# Canonical's linux-headers-VER-generic depends on linux-headers-VER (its
# common half), which Debian does not have, and RHEL's kernel-devel is an
# RPM. The guest side is tests/vm/packages.t's (Ubuntu's).
dkms_prebuilt() {
	local s
	dkms_ready
	# shellcheck source=SCRIPTDIR/../lib/dkms-prebuilt.sh
	source tests/lib/dkms-prebuilt.sh
	for s in ubuntu-6.8 ubuntu-5.15 rhel-9.6 rhel-10.0; do
		dkms_for_prebuilt "$tmp/pkg/usr/src" "$s" || return 1
	done
}

# 6.13 and later need thpcow only for copy and split, and an unknown series
# is not supported: DKMS declines both (exit 77, no build, no failure).
dkms_declines() {
	local k out rc
	dkms_ready
	mkdir -p "$tmp/dkmstree2"
	for k in 7.3.4+deb13-amd64 6.13.0-1-amd64 6.2.0-1-amd64; do
		rc=0
		out=$(env -u THPCOW_WERROR dkms build -m thpcow -v "$version" --sourcetree "$tmp/pkg/usr/src" \
			--dkmstree "$tmp/dkmstree2" -k "$k" --kernelsourcedir "$headers" 2>&1) || rc=$?
		check_eq "$rc" 77 "dkms build -k $k: exit status (77: skipped)"
		check_match "$out" "BUILD_EXCLUSIVE" "DKMS's message for $k"
		[[ ! -e $tmp/dkmstree2/thpcow/$version/$k ]] || {
			echo "DKMS built for $k"
			return 1
		}
	done
}

# A kernel update never fails, with bookworm's DKMS and the packaged
# source and hook, in a mount namespace of their own (overlays on /usr/src,
# /lib/modules, /var/lib/dkms, /etc/kernel, /etc/dkms; nothing of it
# outlives the case): for 6.1 (its headers) the hook builds and installs
# thpcow; for a kernel DKMS declines (7.3) and for one whose build fails (a
# 6.1 ABI whose "headers" fail to build anything), Debian's own hook (DKMS's
# autoinstall, /etc/kernel/header_postinst.d/dkms) and thpcow's both exit 0,
# thpcow's saying why; for one module/Kbuild declines as untested (RHEL
# 10.1's 6.12) thpcow's hook exits 0 with Kbuild's line, and
# THPCOW_UNTESTED_KERNEL=1 added to MAKE[0] in /etc/dkms/thpcow.conf reaches
# Kbuild. The same source with AUTOINSTALL="yes" (0.1.0's
# dkms.conf) shows why thpcow leaves autoinstall: there Debian's hook fails
# the declined kernel (bookworm's DKMS 3.0 counts BUILD_EXCLUSIVE's 77 as a
# failure) and the failed build, and with it the headers' postinst.
kernel_updates() {
	local ns=$tmp/ns out
	dkms_ready
	need unshare
	mkdir -p "$ns"
	cp "$repo/tests/lib/deb-kernel-updates.sh" "$ns/run.sh"
	out=$(unshare -m --propagation private bash "$ns/run.sh" "$tmp/pkg" "$version" "$release" "$ns" 2>&1)
	grep -E '^(thpcow:|rc |dkms: autoinstall|make.log)' <<<"$out" || true
	check_eq "$(grep -E '^(rc|status)' <<<"$out")" "rc thpcow 6.1: 0
status thpcow/$version, $release, x86_64: installed
rc thpcow 7.3: 0
rc debian 7.3: 0
rc thpcow failing: 0
rc debian failing: 0
rc thpcow untested: 0
rc THPCOW_UNTESTED_KERNEL=1 thpcow untested: 0
rc autoinstall=yes debian 7.3: 11
rc autoinstall=yes debian failing: 11" "exit statuses and dkms status"
	check_match "$out" "thpcow: not built for Linux 6\.12\.0-55\.99\.1\.el10_1\.x86_64: Linux 6\.12 \(RHEL 10\.1's, RHEL_RELEASE_CODE 2561\) is not a kernel thpcow is tested on \(tested: .*\); THPCOW_UNTESTED_KERNEL=1 builds it anyway \(DKMS: in MAKE\[0\] of /etc/dkms/thpcow\.conf\)" \
		"the hook on the untested kernel"
	check_match "$out" $'\nmake.log thpcow: building for Linux 6\\.12 \\(RHEL 10\\.1\'s' "the override in /etc/dkms/thpcow.conf reaches module/Kbuild"
	check_match "$out" "thpcow: not built for Linux 7\.3\.4\+deb13-amd64: not a kernel thpcow $version is built for" \
		"the hook on the declined kernel"
	check_match "$out" "thpcow: warning: DKMS could not build thpcow $version for Linux 6\.1\.0-99-amd64 " \
		"the hook on the failed build"
}

# The same with bullseye's DKMS 2.8 and trixie's 3.2 in vm/kbuild's chroots
# (dkms_in_chroots made them and installed DKMS there), without the build
# for their own kernel (dkms_in_chroots'): a declined kernel and a failed
# build fail no hook. Measured: DKMS's own hook with AUTOINSTALL="yes"
# exits 0 for both on 2.8, 0 and 1 on 3.2 (3.0: 11 and 11, kernel_updates).
kernel_updates_chroots() {
	local d root rel out
	[[ $(id -u) == 0 ]] || skip "the chroots need root"
	[[ -d $tmp/pkg ]] || skip "no thpcow-dkms package (make_deb failed)"
	for d in bullseye:5.10.0-46-amd64 trixie:6.12.118+deb13-amd64; do
		root=$vm_chroots/${d%%:*} rel=${d#*:}
		[[ -x $root/usr/sbin/dkms && -d $root/usr/src/linux-headers-$rel ]] ||
			skip "no DKMS or $rel headers in $root (dkms_in_chroots)"
		rm -rf "$root/tmp/thpcow-deb-t"
		mkdir -p "$root/tmp/thpcow-deb-t/ns"
		cp -r "$tmp/pkg" "$root/tmp/thpcow-deb-t/pkg"
		cp "$repo/tests/lib/deb-kernel-updates.sh" "$root/tmp/thpcow-deb-t/run.sh"
		# shellcheck disable=SC2016 # for sh -c
		out=$(flock "$root.lock" unshare -m --propagation private sh -c \
			'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$root" \
			env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 bash /tmp/thpcow-deb-t/run.sh \
			/tmp/thpcow-deb-t/pkg "$version" "$rel" /tmp/thpcow-deb-t/ns nobuild 2>&1)
		rm -rf "$root/tmp/thpcow-deb-t"
		grep -E '^(thpcow:|rc )' <<<"$out" | sed "s/^/${d%%:*}: /" || true
		check_eq "$(grep -E '^rc (thpcow|debian)' <<<"$out")" "rc thpcow 7.3: 0
rc debian 7.3: 0
rc thpcow failing: 0
rc debian failing: 0
rc thpcow untested: 0" "${d%%:*}: exit statuses"
		check_match "$out" "thpcow: not built for Linux 7\.3\.4\+deb13-amd64" "${d%%:*}: the hook on the declined kernel"
		check_match "$out" "thpcow: warning: DKMS could not build" "${d%%:*}: the hook on the failed build"
	done
}

# The packaged source with bullseye's DKMS 2.8 and 5.10 headers, and
# trixie's DKMS 3.x and 6.12 headers, in vm/kbuild's chroots (made if
# missing: a few minutes); bookworm's is dkms_builds_package.
dkms_in_chroots() {
	local s out rc
	[[ $(id -u) == 0 ]] || skip "the chroots need root"
	command -v debootstrap >/dev/null || skip "no debootstrap (make deps)"
	[[ -f $(deb_of thpcow-dkms all) ]] || skip "no thpcow-dkms package (make_deb failed)"
	for s in 5.10 6.12; do
		rc=0
		out=$(env -u THPCOW_WERROR vm/kbuild --dkms "$(deb_of thpcow-dkms all)" "$s" 2>&1) || rc=$?
		grep -E '^(kbuild|built):' <<<"$out"
		((rc == 0)) || {
			tail -n 30 <<<"$out"
			echo "dkms build for $s failed ($rc)"
			return 1
		}
		check_match "$out" $'\nbuilt: /build/dkms-'"$s"'/tree/thpcow/'"$version"'/[^ ]*/thpcow.ko' "the module for $s"
		check_eq "$(grep -i 'deprecat' <<<"$out")" "" "deprecation notices from DKMS for $s"
	done
}

# make deb SUITE= for Debian 11 and 13, in vm/kbuild's chroots (made if
# missing; the build dependencies installed there once): the same files as
# the host's packages (make_deb's, checked above), and a thpcowctl whose
# every versioned dependency the release itself satisfies (its glibc,
# libsmartcols, ...: the chroot's installed versions), without libtracefs
# on Debian 11 (its 1.0 is older than 1.6: the build profile
# pkg.thpcow.notrace), where trace says how to read the event by hand.
suite_packages() {
	local s dir root name ver have
	[[ $(id -u) == 0 ]] || skip "the chroots need root"
	command -v debootstrap >/dev/null || skip "no debootstrap (make deps)"
	[[ -f $(deb_of thpcowctl amd64) ]] || skip "no host packages (make_deb failed)"
	for s in bullseye trixie; do
		dir=build/deb/$s
		make -s deb SUITE=$s >"$tmp/deb-$s.log" 2>&1 || {
			tail -n 30 "$tmp/deb-$s.log"
			return 1
		}
		echo "$s: thpcowctl Depends: $(dpkg-deb -f "$dir/thpcowctl_${version}_amd64.deb" Depends)"
		check_eq "$(cd "$dir" && find . -name '*.deb' | sort)" "./thpcow-dkms_${version}_all.deb
./thpcowctl-dbgsym_${version}_amd64.deb
./thpcowctl_${version}_amd64.deb" "$s: the packages in $dir"
		check_eq "$(contents "$dir/thpcowctl_${version}_amd64.deb")" "$(contents "$(deb_of thpcowctl amd64)")" \
			"$s: thpcowctl's files, as the host's"
		check_eq "$(contents "$dir/thpcow-dkms_${version}_all.deb")" "$(contents "$(deb_of thpcow-dkms all)")" \
			"$s: thpcow-dkms' files, as the host's"
		root=$vm_chroots/$s
		while read -r name ver; do
			have=$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f '${Version}' "$name" 2>/dev/null)
			dpkg --compare-versions "${have:-0}" ge "$ver" ||
				{ echo "$s has $name ${have:-(none)}, thpcowctl needs $ver"; return 1; }
		done < <(dpkg-deb -f "$dir/thpcowctl_${version}_amd64.deb" Depends | tr ',' '\n' |
			sed -n 's/^ *\([^ ]*\) (>= \([^)]*\))$/\1 \2/p')
	done
	check_eq "$(dpkg-deb -f "build/deb/bullseye/thpcowctl_${version}_amd64.deb" Depends | grep -o 'libtrace[a-z]*')" "" \
		"bullseye: no libtracefs or libtraceevent"
	check_eq "$(dpkg-deb -f "build/deb/trixie/thpcowctl_${version}_amd64.deb" Depends | grep -o 'libtrace[a-z]*' |
		sort | paste -sd' ')" "libtraceevent libtracefs" "trixie: libtracefs and libtraceevent"
	# (Debian 11's build runs here too: it needs older libraries than the host's)
	dpkg-deb -x "build/deb/bullseye/thpcowctl_${version}_amd64.deb" "$tmp/bullseye-ctl"
	check_match "$("$tmp/bullseye-ctl/usr/sbin/thpcowctl" trace 2>&1)" "trace: not in this build: .*trace_pipe" \
		"bullseye: thpcowctl trace"
}

cases=(
	make_deb            # make deb: three .deb, a .changes, a .buildinfo in build/deb
	dkms_package        # thpcow-dkms: module sources only, literal version, no deprecated keys
	ctl_package         # thpcowctl: CLI, man pages, completion, unit scripts, conffiles
	lintian_clean       # no lintian error; the warnings kept are listed above
	dkms_builds_package # the packaged source builds for 6.1 with DKMS
	warnings_not_errors # a warning fails make check's build, not DKMS's
	dkms_declines       # 7.3, 6.13 and 6.2: DKMS declines (77), nothing built
	kernel_updates      # declined or failed: no kernel hook fails (bookworm's DKMS 3.0)
	dkms_in_chroots     # bullseye's and trixie's DKMS and headers build it too
	suite_packages      # make deb SUITE=bullseye|trixie: the same files, their releases' libraries
)
# about 2 minutes (dkms_prebuilt: 4 more): make check-all
long_cases=(
	kernel_updates_chroots # no kernel hook fails with bullseye's or trixie's DKMS either
	dkms_prebuilt          # DKMS builds it against Ubuntu's 6.8 and 5.15, RHEL's 9.6 and 10.0 headers packages
)
tap_run "${cases[@]}" --long "${long_cases[@]}"
