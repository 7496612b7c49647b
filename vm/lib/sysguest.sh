# shellcheck shell=bash
# vm/lib/sysguest.sh: boot a Debian root filesystem (a directory on the
# host, e.g. a copy of vm/rootfs) with systemd as init in a QEMU guest,
# for tests/vm/systemd.t and tests/vm/packages.t. Needs vm/lib/vm.sh
# ($vm_scratch). The root is the guest's over 9p, read-write (what the guest
# leaves there is its result), or a disk of its own: an ext4 image made from
# the directory (sysguest_disk), read back with debugfs.
#
#   sysguest_boot KDIR ROOT TIMEOUT [THREADS [APPEND]]
#       boot KDIR's kernel (vm/fetch-kernel) and initramfs, with /init
#       replaced by one that mounts ROOT and switches to its /sbin/init;
#       console in $vm_scratch/console.log; returns QEMU's exit status (124
#       after TIMEOUT seconds). THREADS: multi (default) or single (TCG);
#       APPEND: more of the kernel's command line. ROOT ending in .img is a
#       disk image (virtio-blk, ext4; the initramfs gets the modules that
#       takes from the kernel's packages in KDIR/debs).
#   sysguest_disk ROOT IMAGE
#       make IMAGE, an ext4 file system of 8 GiB (sparse) holding ROOT
#   sysguest_test_unit ROOT SCRIPT COMMAND [FILE...]
#       copy SCRIPT and the FILEs it needs (paths in the repository) to
#       ROOT's /opt/thpcow-test, at the same paths below it, and make ROOT
#       run COMMAND (sh -c, in
#       /var/lib/thpcow-test) at boot as thpcow-test.service, after
#       thpcow.service, then power off; no gettys (a quicker boot)
#   sysguest_problems RC TIMEOUT
#       print why and return 1 if the boot timed out or the guest kernel
#       warned, oopsed or locked up (the guest panics on a WARN).
# Two guests at once (tests/vm/libvirt.t), each in a subshell of its own:
# sysguest_name=NAME gives each its own files ($vm_scratch/console-NAME.log,
# qemu-NAME.log, its initramfs), and the array sysguest_qemu more of QEMU's
# arguments (a network device, an SMBIOS UUID).

: "${vm_scratch:?source vm/lib/vm.sh first}" "${repo:?}"
sysguest_name='' sysguest_qemu=()
# shellcheck source=SCRIPTDIR/splat.sh
source "$(dirname "${BASH_SOURCE[0]}")/splat.sh"

# the modules a root on an ext4 virtio disk needs, in load order (from 7.x
# the kernel has no crc32c_generic or libcrc32c: its lib/crc is built in)
sysguest_disk_modules='crc16 crc32c_generic libcrc32c mbcache jbd2 ext4 virtio_blk'

sysguest_disk() {
	rm -f "$2"
	truncate -s 8G "$2" && mkfs.ext4 -q -F -L thpcow-root -d "$1" "$2"
}

# sysguest_initrd_disk KDIR: the disk modules from KDIR's linux-image
# package (from 7.x its linux-modules package) into
# $vm_scratch/initrd[-NAME]/lib/modules/disk, uncompressed, and their load order
# into its file order. A kernel that has one built in (Ubuntu's 6.8: all of
# them), or needs none (libcrc32c for ext4 from 6.x on), has no file of it:
# it is left out; a root it cannot mount fails the boot. ($sg: sysguest_boot's
# suffix of the guest's files.)
sysguest_initrd_disk() {
	local m f deb dir=$vm_scratch/initrd$sg/lib/modules/disk patterns=() kmods=$vm_scratch/kmods$sg
	# (anew: a test may boot several kernels)
	rm -rf "$dir" "$kmods"
	mkdir -p "$dir" "$kmods"
	: >"$dir/order"
	for m in $sysguest_disk_modules; do patterns+=("*/$m.ko*"); done
	for deb in "$1"/debs/linux-image-*.deb "$1"/debs/linux-modules-*.deb; do
		[[ -e $deb ]] || continue
		# (tar fails for the patterns a package does not have)
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$kmods" --wildcards "${patterns[@]}" 2>/dev/null
	done
	for m in $sysguest_disk_modules; do
		f=$(find "$kmods" -name "$m.ko*" | head -n1)
		[[ -n $f ]] || continue
		case $f in
		*.xz) xz -dc "$f" >"$dir/$m.ko" ;;
		*.zst) zstd -qdc "$f" >"$dir/$m.ko" ;;
		*) cp "$f" "$dir/$m.ko" ;;
		esac || return 1
		echo "$m" >>"$dir/order"
	done
}

sysguest_boot() {
	local kdir=$1 root=$2 timeout=$3 threads=${4:-multi} append=${5:-} kernel rc t0 members=init
	local rootdev=(-virtfs "local,path=${root//,/,,},mount_tag=thpcow-root,security_model=none,multidevs=remap")
	local sg=${sysguest_name:+-$sysguest_name}
	local initrd=$vm_scratch/initrd$sg
	mkdir -p "$initrd"
	# Stage 1: the initramfs of vm/fetch-kernel (busybox, the virtio
	# and 9p modules), with this /init instead (a later cpio member
	# replaces an earlier one): the root over 9p, read-write, or the
	# disk's, then systemd.
	cat >"$initrd/init" <<'INIT'
#!/bin/sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t devtmpfs dev /dev
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
while read -r m; do insmod "/lib/modules/$m"; done </lib/modules/load-order
mkdir -p /newroot
if [ -d /lib/modules/disk ]; then
	while read -r m; do insmod "/lib/modules/disk/$m.ko"; done </lib/modules/disk/order
	for _ in 1 2 3 4 5 6 7 8 9 10; do [ -b /dev/vda ] && break; sleep 1; done
	mount -t ext4 /dev/vda /newroot
else
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=mmap thpcow-root /newroot
fi || {
	echo "sysguest: FAILED to mount the root"
	poweroff -f
}
umount /proc
exec switch_root /newroot /sbin/init
INIT
	chmod +x "$initrd/init"
	if [[ $root == *.img ]]; then
		sysguest_initrd_disk "$kdir" || { echo "sysguest: no disk modules in $kdir/debs" >&2; return 1; }
		members="init lib lib/modules lib/modules/disk lib/modules/disk/order"
		members+=" $(cd "$initrd" && sed 's|.*|lib/modules/disk/&.ko|' lib/modules/disk/order)"
		rootdev=(-drive "file=${root//,/,,},if=virtio,format=raw,cache=unsafe")
	fi
	# shellcheck disable=SC2086 # members: one path a word
	(cd "$initrd" && printf '%s\n' $members | cpio -o -H newc --quiet) >"$vm_scratch/init$sg.cpio"
	cat "$kdir/initrd.cpio" "$vm_scratch/init$sg.cpio" >"$vm_scratch/initrd$sg.cpio"
	kernel=$kdir/vmlinux
	[[ -e $kernel ]] || kernel=$kdir/vmlinuz
	t0=$SECONDS
	# shellcheck disable=SC2054 # commas separate QEMU's suboptions
	timeout --foreground -k 10 "$timeout" qemu-system-x86_64 \
		-nodefaults -no-user-config -display none -no-reboot -M pc \
		-accel "tcg,thread=$threads" -cpu max,-erms,-fsrm -smp 2 -m 2048 \
		-kernel "$kernel" -initrd "$vm_scratch/initrd$sg.cpio" \
		-append "console=ttyS0 panic_on_warn=1 panic=-1 softlockup_panic=1 hung_task_panic=1 $append" \
		-serial "file:$vm_scratch/console$sg.log" "${rootdev[@]}" ${sysguest_qemu[@]+"${sysguest_qemu[@]}"} \
		</dev/null >"$vm_scratch/qemu$sg.log" 2>&1
	rc=$?
	echo "# the guest${sysguest_name:+ $sysguest_name} ran for $((SECONDS - t0)) s (QEMU exit $rc)" >&2
	return "$rc"
}

sysguest_test_unit() {
	local root=$1 t=$1/opt/thpcow-test f
	mkdir -p "$root/var/lib/thpcow-test"
	for f in "$2" "${@:4}"; do
		mkdir -p "$t/$(dirname "$f")" && cp "$repo/$f" "$t/$f" || return 1
	done
	cat >"$root/etc/systemd/system/thpcow-test.service" <<UNIT
[Unit]
Description=$2, then power off
After=thpcow.service

# Type=simple: the system reaches 'running' while it runs (the tests wait for it)
[Service]
WorkingDirectory=/var/lib/thpcow-test
ExecStart=/bin/sh -c '$3'
ExecStopPost=systemctl --no-block poweroff

[Install]
WantedBy=multi-user.target
UNIT
	systemctl --quiet --root="$root" enable thpcow-test.service &&
		systemctl --quiet --root="$root" mask getty-static.service e2scrub_reap.service
}

sysguest_problems() {
	local rc=$1 timeout=$2 console=$vm_scratch/console${sysguest_name:+-$sysguest_name}.log
	if ((rc == 124 || rc == 137)); then
		tail -n 30 "$console"
		echo "the guest timed out after $timeout s"
		return 1
	fi
	if grep -qE "$kernel_problems" "$console"; then
		grep -m1 -B10 -A40 -E "$kernel_problems" "$console"
		echo "the guest kernel reported a problem"
		return 1
	fi
}
