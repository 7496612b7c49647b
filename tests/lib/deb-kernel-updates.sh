#!/usr/bin/env bash
# tests/lib/deb-kernel-updates.sh PKG VERSION RELEASE DIR [nobuild]:
# tests/host/deb.t's kernel_updates, run under `unshare -m` (its mounts die
# with it; on the host or in vm/kbuild's chroots). PKG is thpcow-dkms
# extracted, RELEASE the kernel whose headers are here, DIR for the
# overlays; nobuild: not RELEASE's build (dkms_in_chroots has it). Installs the package's files into overlays of /usr/src,
# /lib/modules, /var/lib/dkms, /etc/kernel and /etc/dkms, and prints "rc WHO
# KERNEL: STATUS" for each kernel hook run, "status ..." for dkms status and
# "make.log ..." for module/Kbuild's line in an untested kernel's make.log.
set -u
pkg=$1 version=$2 release=$3 dir=$4 nobuild=${5:-}
hook=$pkg/usr/libexec/thpcow/dkms-kernel-hook
for d in /usr/src /usr/lib/modules /var/lib/dkms /etc/kernel /etc/dkms; do
	mkdir -p "$d" "$dir/up$d" "$dir/work$d"
	mount -t overlay overlay -o "lowerdir=$d,upperdir=$dir/up$d,workdir=$dir/work$d" "$d" || exit 1
done
# no module of another test, and no signing key made for this run in
# /var/lib/dkms that outlives it (the overlay)
rm -rf /var/lib/dkms/thpcow
cp -r "$pkg/usr/src/thpcow-$version" /usr/src/
ln -sfn "$hook" /etc/kernel/header_postinst.d/thpcow
# A kernel DKMS declines (its headers: 6.1's), and one of a series it builds
# for whose build fails (headers whose Makefile fails).
fake() {
	mkdir -p "/lib/modules/$1"
	ln -sfn "$2" "/lib/modules/$1/build"
}
fake 7.3.4+deb13-amd64 "/usr/src/linux-headers-$release"
mkdir -p /usr/src/linux-headers-failing/include
cp "/usr/src/linux-headers-$release/.config" /usr/src/linux-headers-failing/
printf 'modules:\n\t@echo "deb.t: a compiler error" >&2; exit 1\n' >/usr/src/linux-headers-failing/Makefile
fake 6.1.0-99-amd64 /usr/src/linux-headers-failing
# And one of a series DKMS takes that module/Kbuild declines, untested (RHEL
# 10.1's 6.12, by its version.h): headers whose Makefile has the module's
# Kbuild read with what such a kernel's build gives it.
u=/usr/src/linux-headers-untested
mkdir -p "$u/include/generated/uapi/linux"
cp "/usr/src/linux-headers-$release/.config" "$u/"
printf '#define RHEL_MAJOR 10\n#define RHEL_MINOR 1\n#define RHEL_RELEASE_CODE 2561\n' \
	>"$u/include/generated/uapi/linux/version.h"
# shellcheck disable=SC2016 # make's variables
printf 'modules:\n\t$(MAKE) -f $(M)/Kbuild src=$(M) objtree=%s SRCARCH=x86 VERSION=6 PATCHLEVEL=12 %s\n' "$u" \
	"CONFIG_X86_64=y CONFIG_TRANSPARENT_HUGEPAGE=y CONFIG_KPROBES=y CONFIG_MEMCG=y CONFIG_DYNAMIC_FTRACE_WITH_REGS=y" \
	>"$u/Makefile"
fake 6.12.0-55.99.1.el10_1.x86_64 "$u"

runs() { # runs WHO KERNEL NAME: one hook, its status
	local rc=0
	case $1 in
	thpcow) "$hook" "$2" || rc=$? ;;
	*) /etc/kernel/header_postinst.d/dkms "$2" || rc=$? ;;
	esac
	echo "rc ${4:+$4 }$1 $3: $rc"
}

dkms add -m thpcow -v "$version" >/dev/null || exit 1
if [[ -z $nobuild ]]; then
	runs thpcow "$release" 6.1
	echo "status $(dkms status thpcow -k "$release")"
fi
runs thpcow 7.3.4+deb13-amd64 7.3
runs debian 7.3.4+deb13-amd64 7.3
runs thpcow 6.1.0-99-amd64 failing
runs debian 6.1.0-99-amd64 failing
runs thpcow 6.12.0-55.99.1.el10_1.x86_64 untested
# the operator's override reaches module/Kbuild (which then builds nothing
# here: a warning from the hook, the override's line in make.log)
# shellcheck disable=SC2016 # DKMS expands it
echo 'MAKE[0]="${MAKE[0]} THPCOW_UNTESTED_KERNEL=1"' >/etc/dkms/thpcow.conf
runs thpcow 6.12.0-55.99.1.el10_1.x86_64 untested THPCOW_UNTESTED_KERNEL=1
echo "make.log $(grep -o 'thpcow: building for .*' "/var/lib/dkms/thpcow/$version/build/make.log")"
rm /etc/dkms/thpcow.conf
# as 0.1.0 was: DKMS's autoinstall
echo 'AUTOINSTALL="yes"' >>"/usr/src/thpcow-$version/dkms.conf"
runs debian 7.3.4+deb13-amd64 7.3 autoinstall=yes
runs debian 6.1.0-99-amd64 failing autoinstall=yes
