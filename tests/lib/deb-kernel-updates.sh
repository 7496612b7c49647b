#!/usr/bin/env bash
# tests/lib/deb-kernel-updates.sh PKG VERSION RELEASE DIR [nobuild]:
# tests/host/deb.t's kernel_updates, run under `unshare -m` (its mounts die
# with it; on the host or in vm/kbuild's chroots). PKG is thpcow-dkms
# extracted, RELEASE the kernel whose headers are here, DIR for the
# overlays; nobuild: not RELEASE's build (dkms_in_chroots has it). Installs the package's files into overlays of /usr/src,
# /lib/modules, /var/lib/dkms and /etc/kernel, and prints "rc WHO KERNEL:
# STATUS" for each kernel hook run and "status ..." for dkms status.
set -u
pkg=$1 version=$2 release=$3 dir=$4 nobuild=${5:-}
hook=$pkg/usr/libexec/thpcow/dkms-kernel-hook
for d in /usr/src /usr/lib/modules /var/lib/dkms /etc/kernel; do
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
# as 0.1.0 was: DKMS's autoinstall
echo 'AUTOINSTALL="yes"' >>"/usr/src/thpcow-$version/dkms.conf"
runs debian 7.3.4+deb13-amd64 7.3 autoinstall=yes
runs debian 6.1.0-99-amd64 failing autoinstall=yes
