#!/usr/bin/env bash
# tests/host/install.t: installing thpcow. `make install-all DESTDIR=...`
# installs exactly the files `make list-installed` lists, with their modes,
# the /etc files' defaults also in DOCDIR, and that list installs every
# source meant to be; an edited /etc file is kept, and `make uninstall`
# takes the rest away; the module is refused for another kernel; the version
# is one in the header, dkms.conf, debian/changelog, the module and
# thpcowctl, and the series thpcowctl knows are module/Kbuild's; and
# DKMS adds, builds, installs and removes thpcow (make install-dkms-src's
# tree, what thpcow-dkms ships) for the 6.1 headers (files under
# /lib/modules/6.1.0-*/updates/dkms only; nothing is loaded) and declines a
# kernel without an option thpcow needs. Needs root for DKMS.
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
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
header_version=$(sed -n 's/^#define THPCOW_VERSION[[:space:]]*"\(.*\)"$/\1/p' include/uapi/thpcow.h)

# install_into DIR [TARGET]: make TARGET (install-all) into DIR, for 6.1
install_into() {
	make -s "${2:-install-all}" DESTDIR="$1" PREFIX=/usr/local KERNELRELEASE=$release \
		KERNEL_DIR="$headers" >"$tmp/make.log" 2>&1 || {
		cat "$tmp/make.log"
		return 1
	}
}
# files DIR: the files and links under DIR, depmod's indexes left out
files() { (cd "$1" && find . ! -type d ! -name 'modules.*' | sort); }
need_headers() { [[ -d $headers ]] || skip "no $headers (make deps)"; }

# listed TARGET...: "MODE PATH" of each file the Makefile lists for the
# TARGETs (make list-installed) with install_into's directories, PATH as files
# prints it; the mode as find's %m.
listed() {
	make -s list-installed PREFIX=/usr/local KERNELRELEASE=$release |
		awk -v targets=" $* " 'index(targets, " " $1 " ") { sub(/^0/, "", $2); print $2, "." $4 }' | sort -k2
}

install_all_files() {
	need_headers
	install_into "$tmp/all"
	check_eq "$(cd "$tmp/all" && find . ! -type d ! -name 'modules.*' -printf '%m %p\n' | sort -k2)" \
		"$(listed install install-tools)" "the files and their modes (make list-installed)"
	check_match "$(cat "$tmp/all/lib/modules/$release/modules.dep")" \
		'(^|'$'\n'')extra/thpcow.ko:' "depmod ran"
	check_eq "$(cmp "$tmp/all/usr/local/sbin/thpcowctl" tools/thpcowctl/thpcowctl && echo same)" same \
		"the installed thpcowctl is the one built"
	# /etc is never overwritten: DOCDIR has the defaults to compare with.
	local etc_sources
	etc_sources=$(make -s list-installed | awk '$4 ~ "^/etc/" && $2 != "0777" && $1 != "install-dkms" { print $3 }')
	check_match "$etc_sources" . "the /etc files listed"
	check_eq "$(while read -r f; do cmp -s "$f" "$tmp/all/usr/local/share/doc/thpcow/${f##*/}" && echo "$f"
	done <<<"$etc_sources")" "$etc_sources" "the /etc files' defaults in DOCDIR"
}

# What the list installs from is every source meant to be installed: what
# git has in dist/ but the DKMS kernel hook (install-dkms's), thpcowctl
# with its man pages (man/) and completion, and what DKMS builds from (module/,
# the ABI header, dkms.conf). A file dropped from the list, or one added to
# the tree and not to the list, fails here. (Links, mode 0777, name what
# they point to.)
sources_listed() {
	git rev-parse --is-inside-work-tree >/dev/null 2>&1 || skip "not a git checkout"
	check_eq "$(make -s list-installed | awk '$1 == "install-tools" && $2 != "0777" { print $3 }' | sort -u)" \
		"$( (git ls-files dist man tools/thpcowctl/'*'.bash-completion |
			grep -vxF dist/dkms-kernel-hook |
			# the Ansible role runs on the control node, from the tree
			grep -v '^dist/ansible/'
			echo tools/thpcowctl/thpcowctl) | sort)" "install-tools' sources"
	check_eq "$(make -s list-installed | awk '$1 == "install-dkms" && $2 != "0777" { print $3 }')" \
		dist/dkms-kernel-hook "install-dkms' sources"
	check_eq "$(make -s list-installed | awk '$1 == "install-dkms-src" { print $3 }' | sort)" \
		"$(git ls-files module dkms.conf include/uapi | sort)" "install-dkms-src's sources"
}

# An edited /etc file survives install and uninstall; the rest goes.
uninstall_keeps_edits() {
	need_headers
	install_into "$tmp/u"
	echo "global zero" >>"$tmp/u/etc/thpcow.conf"
	install_into "$tmp/u" install-tools
	check_eq "$(tail -n1 "$tmp/u/etc/thpcow.conf")" "global zero" "the edited file after install"
	install_into "$tmp/u" uninstall
	check_eq "$(files "$tmp/u")" "./etc/thpcow.conf" "what uninstall left"
	check_match "$(cat "$tmp/u/lib/modules/$release/modules.dep")" '^$' "depmod ran again"
}

wrong_kernel() {
	need_headers
	if make -s install DESTDIR="$tmp/w" KERNELRELEASE=5.10.0-46-amd64 KERNEL_DIR="$headers" \
		>"$tmp/w.log" 2>&1; then
		echo "make install put a module built for $release under 5.10.0-46-amd64"
		return 1
	fi
	check_match "$(cat "$tmp/w.log")" "make install: module/thpcow.ko is built for $release, not 5.10.0-46-amd64" \
		"the message"
	check_eq "$(find "$tmp/w" -name '*.ko' 2>/dev/null)" "" "modules installed"
}

# One version: the header's string and numbers, dkms.conf, the module, the tool.
versions_agree() {
	local numbers dkms
	need_headers
	numbers=$(for p in MAJOR MINOR PATCH; do
		sed -n "s/^#define THPCOW_VERSION_${p}[[:space:]]*\([0-9]*\)$/\1/p" include/uapi/thpcow.h
	done | paste -sd.)
	check_match "$header_version" '^[0-9]+\.[0-9]+\.[0-9]+$' "THPCOW_VERSION"
	check_eq "$numbers" "$header_version" "THPCOW_VERSION_MAJOR.MINOR.PATCH"
	# what thpcow-dkms ships (make install-dkms-src puts the version in)
	make -s install-dkms-src DESTDIR="$tmp/v" DKMS_SRC=/ >/dev/null || return 1
	# shellcheck disable=SC1091 # DKMS sources it the same way
	dkms=$(source "$tmp/v/dkms.conf" && echo "$PACKAGE_NAME $PACKAGE_VERSION")
	check_eq "$(dpkg-parsechangelog -l debian/changelog -S Version)" "$header_version" "debian/changelog"
	check_eq "$(grep -c '^PACKAGE_VERSION="#MODULE_VERSION#"$' dkms.conf)" 1 \
		"dkms.conf's version: the header's, put in at install"
	check_eq "$(sed -n 's/^#define THPCOW_SERIES[[:space:]]*"\(.*\)"$/\1/p' tools/thpcowctl/probe.h)" \
		"$(sed -n 's/^thpcow-series := //p' module/Kbuild)" "thpcowctl's series (probe.h), module/Kbuild's"
	check_eq "$(sed -n 's/^#define THPCOW_UBUNTU_SERIES[[:space:]]*"\(.*\)"$/\1/p' tools/thpcowctl/probe.h)" \
		"$(sed -n 's/^thpcow-ubuntu-series := //p' module/Kbuild)" "thpcowctl's Ubuntu series (probe.h), module/Kbuild's"
	check_eq "$(sed -n 's/^#define THPCOW_RHEL_RELEASES[[:space:]]*"\(.*\)"$/\1/p' tools/thpcowctl/probe.h)" \
		"$(sed -n 's/^thpcow-rhel-releases := //p' module/Kbuild)" "thpcowctl's RHEL releases (probe.h), module/Kbuild's"
	check_eq "$dkms" "thpcow $header_version" "dkms.conf"
	make -s module tools KERNEL_DIR="$headers" >/dev/null 2>&1
	check_eq "$(modinfo -F version module/thpcow.ko)" "$header_version" "MODULE_VERSION"
	check_eq "$(tools/thpcowctl/thpcowctl --version | head -n1)" "thpcowctl $header_version (ABI 1)" \
		"thpcowctl --version"
}

# The sources DKMS needs, alone in a directory (what thpcow-dkms ships), as a
# source tree for dkms add.
dkms_tree() {
	make -s install-dkms-src DESTDIR="$1" DKMS_SRC=/ >"$tmp/make.log" 2>&1 || {
		cat "$tmp/make.log"
		return 1
	}
}
dkms_ready() {
	command -v dkms >/dev/null || skip "no dkms (apt-get install dkms)"
	[[ $(id -u) == 0 ]] || skip "dkms needs root"
	need_headers
	! grep -rqs '^[^#]*modprobe_on_install' /etc/dkms ||
		skip "/etc/dkms sets modprobe_on_install: dkms install would load modules"
	[[ ! -e /var/lib/dkms/thpcow && ! -e /usr/src/thpcow-$header_version ]] ||
		skip "thpcow is already known to dkms here (/var/lib/dkms/thpcow)"
	had_index=0
	[[ ! -e /lib/modules/$release/modules.dep ]] || had_index=1
}
# What DKMS left: the source tree, and the indexes depmod made if there were none.
dkms_cleanup() {
	local mods=/lib/modules/$release
	dkms remove "thpcow/$header_version" --all >/dev/null 2>&1 || true
	rm -rf "/usr/src/thpcow-$header_version" /var/lib/dkms/thpcow
	rmdir "$mods/updates/dkms" "$mods/updates" 2>/dev/null || true
	((had_index)) || rm -f "$mods"/modules.*
}

dkms_cycle() {
	local ko=/lib/modules/$release/updates/dkms/thpcow.ko
	dkms_ready
	trap dkms_cleanup EXIT
	dkms_tree "$tmp/dkms"
	dkms add "$tmp/dkms" >"$tmp/dkms.log" 2>&1 || { cat "$tmp/dkms.log"; return 1; }
	check_match "$(dkms status thpcow)" "^thpcow/$header_version: added" "dkms status after add"
	dkms build "thpcow/$header_version" -k "$release" >"$tmp/dkms.log" 2>&1 ||
		{ cat "$tmp/dkms.log"; return 1; }
	dkms install "thpcow/$header_version" -k "$release" >"$tmp/dkms.log" 2>&1 ||
		{ cat "$tmp/dkms.log"; return 1; }
	check_match "$(dkms status thpcow)" "^thpcow/$header_version, $release, x86_64: installed" \
		"dkms status after install"
	check_eq "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" "$release" "the installed module's kernel"
	check_eq "$(modinfo -F version "$ko")" "$header_version" "its version"
	check_match "$(cat "/lib/modules/$release/modules.dep")" '(^|'$'\n'')updates/dkms/thpcow.ko:' \
		"depmod ran"
	[[ ! -e /sys/module/thpcow ]] || {
		echo "thpcow is loaded on this host"
		return 1
	}
	dkms remove "thpcow/$header_version" --all >"$tmp/dkms.log" 2>&1 ||
		{ cat "$tmp/dkms.log"; return 1; }
	check_eq "$(dkms status thpcow)" "" "dkms status after remove"
	[[ ! -e $ko ]] || {
		echo "$ko is still there"
		return 1
	}
}

# A kernel without CONFIG_MEMCG, or of a series DKMS does not build for:
# DKMS declines it before compiling (exit 77: skipped, not failed).
dkms_refuses() {
	local fake=$tmp/headers-nomemcg out rc=0
	dkms_ready
	trap dkms_cleanup EXIT
	dkms_tree "$tmp/dkms2"
	dkms add "$tmp/dkms2" >/dev/null 2>&1 || return 1
	mkdir -p "$fake"
	grep -v '^CONFIG_MEMCG=' "$headers/.config" >"$fake/.config"
	out=$(dkms build "thpcow/$header_version" -k "$release" --kernelsourcedir "$fake" 2>&1) || rc=$?
	check_eq "$rc" 77 "dkms build's exit status (77: BUILD_EXCLUSIVE)"
	check_match "$out" "BUILD_EXCLUSIVE directive which does not match" "DKMS's message"
	rc=0
	out=$(dkms build "thpcow/$header_version" -k 5.4.0-1-amd64 --kernelsourcedir "$headers" 2>&1) || rc=$?
	check_eq "$rc" 77 "an unsupported series: dkms build's exit status"
}

cases=(
	install_all_files     # make install-all DESTDIR: make list-installed's files and modes, depmod
	sources_listed        # that list installs every source meant to be installed
	uninstall_keeps_edits # an edited /etc/thpcow.conf survives; uninstall removes the rest
	wrong_kernel          # make install refuses a module built for another kernel
	versions_agree        # header, dkms.conf, modinfo and thpcowctl: one version
	dkms_cycle            # dkms add/build/install/remove for 6.1 (-k), nothing loaded
	dkms_refuses          # no CONFIG_MEMCG, or an unknown series: refused with a reason
)
tap_run "${cases[@]}"
