#!/usr/bin/env bash
# tests/host/rpm.t: the RPM packages for RHEL hosts. `make rpm` (rpmbuild,
# Debian's rpm package) builds thpcow-dkms (noarch), thpcowctl and the
# source package into build/rpm/; each binary package holds exactly the
# files, with their modes, that `make list-installed` lists for the install
# targets rpm/thpcow.spec calls with its directories (thpcow-dkms: make
# install-dkms's, a dkms.conf with a literal version; thpcowctl: make
# install-tools', the systemd units under /usr/lib/systemd/system, the /etc
# files as %config(noreplace)); and DKMS (bookworm's: EPEL's is not at hand)
# builds the RPM's module sources against RHEL 9.6's and 10.0's headers
# packages (../shared/kernels; make check-all); thpcow-dkms's kernel-install
# plugin hands a new kernel to the hook and never fails. What no test here
# does: install them on RHEL (dnf, EPEL's dkms, kernel-install itself there,
# SELinux).
# jobs: 2
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"
cd "$repo" || exit 1

version=$(sed -n 's/^#define THPCOW_VERSION[[:space:]]*"\(.*\)"$/\1/p' include/uapi/thpcow.h)
rpms=$repo/build/rpm
dkms_rpm=$rpms/RPMS/noarch/thpcow-dkms-$version-1.noarch.rpm
ctl_rpm=$rpms/RPMS/x86_64/thpcowctl-$version-1.x86_64.rpm
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the directories rpm/thpcow.spec gives the Makefile (Fedora's macros)
spec_dirs=(PREFIX=/usr SBINDIR=/usr/sbin MANDIR=/usr/share/man UNITDIR=/usr/lib/systemd/system
	LIBEXECDIR=/usr/libexec SYSCONFDIR=/etc CONF_EXAMPLES=no "DKMS_SRC=/usr/src/thpcow-$version")

need_rpm() { command -v rpmbuild >/dev/null || skip "no rpmbuild (apt-get install rpm)"; }
# contents RPM: "PERMS PATH" of each file in RPM, directories left out
contents() {
	rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$1" 2>/dev/null | awk '$1 !~ /^d/' | sort -k2
}
# listed TARGET: "PERMS PATH" of each file the Makefile's TARGET (a regular
# expression) installs with the spec's directories, as contents prints them
listed() {
	make -s list-installed "${spec_dirs[@]}" | awk -v t="$1" '$1 ~ "^(" t ")$" {
		p = "-"
		for (i = 2; i <= 4; i++) p = p substr("-----x-w--wxr--r-xrw-rwx", substr($2, i, 1) * 3 + 1, 3)
		if ($2 == "0777") p = "lrwxrwxrwx" # a link
		print p, $4 }' | sort -k2
}

make_rpm() {
	need_rpm
	make -s rpm >"$tmp/rpm.log" 2>&1 || {
		tail -n 30 "$tmp/rpm.log"
		return 1
	}
	check_eq "$(cd "$rpms" && find . -name '*.rpm' | sort)" "./RPMS/noarch/thpcow-dkms-$version-1.noarch.rpm
./RPMS/x86_64/thpcowctl-$version-1.x86_64.rpm
./SRPMS/thpcow-$version-1.src.rpm" "the packages in build/rpm"
	check_eq "$(rpm -qpl "$rpms/SRPMS/thpcow-$version-1.src.rpm" 2>/dev/null)" "thpcow-$version.tar.gz
thpcow.spec" "the source package"
}

dkms_package() {
	[[ -f $dkms_rpm ]] || skip "no $dkms_rpm (make_rpm failed)"
	check_eq "$(rpm -qp --qf '%{ARCH}' "$dkms_rpm" 2>/dev/null)" noarch "thpcow-dkms' architecture"
	# make install-dkms' files, and kernel-install's plugin (RHEL's hook)
	check_eq "$(contents "$dkms_rpm")" "$({ listed 'install-dkms(-src)?' &&
		echo "-rwxr-xr-x /usr/lib/kernel/install.d/50-thpcow.install"; } | sort -k2)" "thpcow-dkms' files"
	mkdir -p "$tmp/dkms-root"
	(cd "$tmp/dkms-root" && rpm2cpio "$dkms_rpm" | cpio -idm --quiet) || return 1
	check_eq "$(grep '^PACKAGE_VERSION=' "$tmp/dkms-root/usr/src/thpcow-$version/dkms.conf")" \
		"PACKAGE_VERSION=\"$version\"" "a literal PACKAGE_VERSION"
	check_match "$(rpm -qp --requires "$dkms_rpm" 2>/dev/null)" $'(^|\n)dkms\n' "requires dkms"
}

# kernel-install's plugin hands `add RELEASE` to the hook, and nothing else;
# it exits 0 whatever the hook does (here: a stand-in hook that fails).
kernel_install_plugin() {
	local plugin=$tmp/dkms-root/usr/lib/kernel/install.d/50-thpcow.install out rc args
	[[ -x $plugin ]] || skip "no plugin extracted (dkms_package failed)"
	mkdir -p "$tmp/hook"
	printf '#!/bin/sh
echo "hook $*" >>"%s/calls"
exit 3
' "$tmp/hook" >"$tmp/hook/dkms-kernel-hook"
	chmod +x "$tmp/hook/dkms-kernel-hook"
	sed "s%/usr/libexec/thpcow/%$tmp/hook/%" "$plugin" >"$tmp/hook/plugin"
	for args in "add 5.14.0-611.el9_7.x86_64 /boot/entry /boot/vmlinuz" "remove 5.14.0-570.el9_6.x86_64" "add" ""; do
		# shellcheck disable=SC2086 # the arguments, split
		sh "$tmp/hook/plugin" $args
		rc=$?
		check_eq "$rc" 0 "the plugin's exit status for '$args'"
	done
	out=$(cat "$tmp/hook/calls" 2>/dev/null)
	check_eq "$out" "hook 5.14.0-611.el9_7.x86_64" "the hook's calls"
}

ctl_package() {
	[[ -f $ctl_rpm ]] || skip "no $ctl_rpm (make_rpm failed)"
	check_eq "$(contents "$ctl_rpm")" "$(listed install-tools)" "thpcowctl's files"
	check_eq "$(rpm -qp --configfiles "$ctl_rpm" 2>/dev/null | sort)" "$(make -s list-installed "${spec_dirs[@]}" |
		awk '$1 == "install-tools" && $4 ~ "^/etc/" { print $4 }' | sort)" "the /etc files are %config"
	check_match "$(contents "$ctl_rpm")" $'\n-rw-r--r-- /usr/lib/systemd/system/thpcow.service\n' "the units' directory"
}

# DKMS builds the RPM's module sources against RHEL's headers packages (the
# harness's, make bindeb-pkg's: RHEL's kernel-devel is an RPM), as vm/series
# names them.
dkms_rhel_headers() {
	local s
	command -v dkms >/dev/null || skip "no dkms (make deps)"
	[[ $(id -u) == 0 ]] || skip "dkms needs root"
	[[ -d $tmp/dkms-root/usr/src ]] || skip "no thpcow-dkms extracted (dkms_package failed)"
	# shellcheck source=SCRIPTDIR/../lib/dkms-prebuilt.sh
	source tests/lib/dkms-prebuilt.sh
	for s in rhel-9.6 rhel-10.0; do
		dkms_for_prebuilt "$tmp/dkms-root/usr/src" "$s" || return 1
	done
}

# thpcow-dkms's scriptlets, run by sh with a stand-in dkms that logs its
# calls (and lists an older version and this one as registered): RPM runs
# the new package's %post before the old one's %preun, so the %post removes
# any other version, and a %preun removes this one only on an erase ($1 0),
# not when an upgrade or a reinstall to the same version follows ($1 1).
dkms_scriptlets() {
	local scripts post preun
	[[ -f $dkms_rpm ]] || skip "no $dkms_rpm (make_rpm failed)"
	scripts=$(rpm -qp --scripts "$dkms_rpm" 2>/dev/null)
	post=$(sed -n '/^postinstall scriptlet/,/^preuninstall scriptlet/p' <<<"$scripts" | sed '1d;$d')
	preun=$(sed -n '/^preuninstall scriptlet/,$p' <<<"$scripts" | sed '1d;/scriptlet/,$d')
	# its test of a registered version, on a directory that exists here; no
	# kernel's headers for the hook's loop
	preun=${preun//\/var\/lib\/dkms\/thpcow\/$version/$tmp}
	post=${post//\/lib\/modules\//$tmp/none/}
	mkdir -p "$tmp/stub"
	cat >"$tmp/stub/dkms" <<-EOF
		#!/bin/sh
		echo "dkms \$*" >>"$tmp/stub/calls"
		[ "\$1" != status ] || printf 'thpcow/0.1.9, 5.14.0-570.el9_6.x86_64, x86_64: installed\nthpcow/$version: added\n'
	EOF
	chmod +x "$tmp/stub/dkms"
	PATH=$tmp/stub:$PATH sh -c "$post" sh 1
	check_eq "$(grep -v '^dkms status' "$tmp/stub/calls")" "dkms remove -m thpcow -v 0.1.9 --all
dkms add -m thpcow -v $version" "%post's dkms calls"
	: >"$tmp/stub/calls"
	PATH=$tmp/stub:$PATH sh -c "$preun" sh 1
	check_eq "$(cat "$tmp/stub/calls")" "" "%preun on an upgrade"
	PATH=$tmp/stub:$PATH sh -c "$preun" sh 0
	check_eq "$(cat "$tmp/stub/calls")" "dkms remove -m thpcow -v $version --all" "%preun on an erase"
}

cases=(
	make_rpm          # make rpm: thpcow-dkms, thpcowctl and the source package in build/rpm
	dkms_package      # thpcow-dkms: noarch, make install-dkms' files, a literal version
	ctl_package       # thpcowctl: make install-tools' files, units in /usr/lib/systemd/system, %config
	kernel_install_plugin # a new kernel (kernel-install add) runs the hook; the plugin never fails
	dkms_scriptlets   # %post removes other versions; %preun removes only on an erase
)
long_cases=(
	dkms_rhel_headers # DKMS builds the RPM's sources against RHEL 9.6's and 10.0's headers
)
tap_run "${cases[@]}" --long "${long_cases[@]}"
