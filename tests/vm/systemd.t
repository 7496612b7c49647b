#!/usr/bin/env bash
# tests/vm/systemd.t: thpcow installed the way users install it, in a guest
# that boots with systemd as init. A copy of the bookworm root that
# tests/vm/rootfs makes (cached) gets `make install-all` (module for 6.1,
# thpcowctl, thpcow.service enabled), an /etc/thpcow.conf and a modprobe.d
# option; Debian's stock 6.1 boots it as its root over 9p, and
# tests/guest/systemd.sh runs there as a unit after thpcow.service. The TAP
# comes from the guest; a kernel warning, oops or lockup fails the run (the
# guest panics on a WARN, as with tests/vm/run). About a minute once the root
# is cached (making it: about 5 minutes, once).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../lib/vm.sh
source "$here/../lib/vm.sh" # repo, vm_scratch (removed on exit)
cd "$repo" || exit 1

timeout=300
# what tests/vm/run counts as the guest kernel misbehaving
kernel_problems='WARNING: CPU:|BUG:|Oops|Call Trace|detected stall|soft lockup|hard LOCKUP|blocked for more than|Kernel panic'

bail() {
	echo "TAP version 13"
	echo "Bail out! $*"
	exit 1
}

kdir=$(tests/vm/fetch-kernel 6.1) || bail "no 6.1 kernel (tests/vm/fetch-kernel 6.1)"
release=$(cat "$kdir/release")
base=$(tests/vm/rootfs) || bail "no bookworm root filesystem (tests/vm/rootfs)"
make -s tools module KERNEL_DIR="/usr/src/linux-headers-$release" >&2 ||
	bail "building thpcowctl or the module for $release failed"

# The guest's root: a copy (the guest writes to it), thpcow installed.
root=$vm_scratch/root
cp -a "$base" "$root" || bail "cannot copy $base"
make -s install-all DESTDIR="$root" PREFIX=/usr KERNELRELEASE="$release" \
	KERNEL_DIR="/usr/src/linux-headers-$release" >&2 || bail "make install-all failed"
printf '# tests/vm/systemd.t\nglobal kernel\ncgroup /machine.slice zero  # the guests\n' \
	>"$root/etc/thpcow.conf"
echo "options thpcow default_mode=zero" >"$root/etc/modprobe.d/thpcow.conf"
t=$root/opt/thpcow-test
mkdir -p "$t/tests/guest" "$t/tests/lib" "$t/tests/prog" "$root/var/lib/thpcow-test"
cp tests/guest/systemd.sh "$t/tests/guest/"
cp tests/lib/tap.sh "$t/tests/lib/"
cp tests/prog/wrf "$t/tests/prog/"
cat >"$root/etc/systemd/system/thpcow-test.service" <<'UNIT'
[Unit]
Description=tests/guest/systemd.sh, then power off
After=thpcow.service

[Service]
ExecStart=/bin/sh -c 'cd /var/lib/thpcow-test && /opt/thpcow-test/tests/guest/systemd.sh >tap.new 2>&1; mv tap.new tap'
ExecStopPost=systemctl --no-block poweroff

[Install]
WantedBy=multi-user.target
UNIT
systemctl --quiet --root="$root" enable thpcow.service thpcow-test.service ||
	bail "systemctl --root enable failed"
# a quicker boot: no consoles to log in on
systemctl --quiet --root="$root" mask getty-static.service e2scrub_reap.service

# Stage 1: the initramfs of tests/vm/fetch-kernel (busybox, the virtio and
# 9p modules), with this /init instead (a later cpio member replaces an
# earlier one): the root over 9p, read-write, then systemd.
mkdir -p "$vm_scratch/initrd"
cat >"$vm_scratch/initrd/init" <<'INIT'
#!/bin/sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t devtmpfs dev /dev
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
while read -r m; do insmod "/lib/modules/$m"; done </lib/modules/load-order
mkdir -p /newroot
if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=mmap thpcow-root /newroot; then
	echo "systemd.t: FAILED to mount the root"
	poweroff -f
fi
umount /proc
exec switch_root /newroot /sbin/init
INIT
chmod +x "$vm_scratch/initrd/init"
(cd "$vm_scratch/initrd" && echo init | cpio -o -H newc --quiet) >"$vm_scratch/init.cpio"
cat "$kdir/initrd.cpio" "$vm_scratch/init.cpio" >"$vm_scratch/initrd.cpio"

kernel=$kdir/vmlinux
[[ -e $kernel ]] || kernel=$kdir/vmlinuz
console=$vm_scratch/console.log
t0=$SECONDS
# shellcheck disable=SC2054 # commas separate QEMU's suboptions
timeout --foreground -k 10 "$timeout" qemu-system-x86_64 \
	-nodefaults -no-user-config -display none -no-reboot -M pc \
	-accel tcg,thread=multi -cpu max,-erms,-fsrm -smp 2 -m 2048 \
	-kernel "$kernel" -initrd "$vm_scratch/initrd.cpio" \
	-append "console=ttyS0 panic_on_warn=1 panic=-1 softlockup_panic=1 hung_task_panic=1" \
	-serial "file:$console" \
	-virtfs "local,path=${root//,/,,},mount_tag=thpcow-root,security_model=none,multidevs=remap" \
	</dev/null >"$vm_scratch/qemu.log" 2>&1
rc=$?
echo "# the guest ran for $((SECONDS - t0)) s (QEMU exit $rc)" >&2

tap=$root/var/lib/thpcow-test/tap
if ((rc == 124 || rc == 137)); then
	tail -n 30 "$console" >&2
	bail "the guest timed out after $timeout s"
fi
if grep -qE "$kernel_problems" "$console"; then
	grep -m1 -B10 -A40 -E "$kernel_problems" "$console" >&2
	bail "the guest kernel reported a problem"
fi
[[ -s $tap ]] || {
	tail -n 40 "$console" >&2
	bail "tests/guest/systemd.sh left no results"
}
cat "$tap"
grep -q '^# Totals: pass:[0-9]* fail:0 ' "$tap"
