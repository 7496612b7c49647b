#!/usr/bin/env bash
# tests/vm/libvirt.t: real libvirt, end to end. Two test guests, each a
# libvirt host: Debian 12's own libvirt-daemon-system, libvirt-clients and
# qemu-system-x86 (libvirt 9.0, QEMU 7.2, systemd-machined, cgroup v2) and
# thpcow from the packages of `make deb` (DKMS), booted with systemd from a
# root disk of its own on Debian's 6.1, KVM in each (TCG's -cpu max emulates
# AMD SVM with nested paging). tests/guest/libvirt.sh runs on the
# destination and drives both: a small KVM domain defined from plain XML
# (prog/migfw.bin, the no-OS guest of vm/mig.py, as its firmware, at the
# same path on both hosts), migrated with `virsh migrate` from the source.
# Its cases, in the guest's TAP: precopy with `cgroup /machine.slice zero`
# on the destination and without it (the kernel's split, the control),
# postcopy with the hook on, the hook with thpcowctl missing and the module
# unloaded, and `systemctl restart libvirtd` with a guest running.
#
# Topology: two guests, not two daemons in namespaces of one, so that each
# libvirt has its own hostname, host UUID (QEMU's -uuid, the SMBIOS one
# libvirt reads), machined, cgroup tree, KVM and thpcow, as two hosts do.
# They are joined by one virtual link only: QEMU's socket netdev on the
# machine's loopback (the source listens, the destination connects), with
# static addresses 10.87.0.1 (lv-src) and 10.87.0.2 (lv-dst) set by
# systemd-networkd, no gateway, no route anywhere else, and libvirt's
# default NAT network not started (its autostart link removed, as `virsh
# net-autostart --disable default` does). libvirt talks to the other host
# over qemu+ssh, the transport an operator uses (root's key in
# authorized_keys, the host key in known_hosts: no daemon listens on TCP);
# QEMU's migration stream goes to the destination's address as libvirt
# chooses it (tcp to lv-dst, the port from 49152).
#
# The root: vm/rootfs bookworm plus what the test needs (libvirt, QEMU,
# udev, D-Bus, ssh, python3 for vm/lib/qemu.py, dkms and the kernel's
# headers), no recommended packages (so no dnsmasq, iptables or AppArmor:
# libvirt then has no security driver; virt-ssh-helper comes with
# libvirt-daemon, netcat-openbsd is there as libvirt's fallback), resolved
# by the host's apt against the root's dpkg status and installed on the
# host under chroot into a cached copy, $vm_cache/rootfs/bookworm-libvirt,
# made anew when that list, the kernel or the root's recipe change; KVM's
# and virtio-net's modules from the kernel's package added. Each run copies
# it, installs the two .debs there under chroot (DKMS builds the module for
# the guests' kernel), and makes two root disks of it, one per host.
#
# Measured on the 2-core machine with other guests running (load 11-13):
# 18 to 27 minutes, of which the root disks 2 to 4 (DKMS's build) and the boots 3;
# each migration about a minute (ssh and libvirt's phases under TCG). The
# cached root is made once, in 2 to 10 minutes. So make check-all only:
# two single-threaded TCG guests for the whole run.
# jobs: 2
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
# shellcheck source=SCRIPTDIR/../lib/localrepo.sh
source "$here/../lib/localrepo.sh" # local_repo, cached_root, in_root
cd "$repo" || exit 1

series=6.1 suite=bookworm timeout=2700
# Bump when what libvirt_root puts in the cached root changes.
recipe=1
# what the root gets beyond vm/rootfs (and thpcowctl's own dependencies)
root_packages=(libvirt-daemon-system libvirt-clients qemu-system-x86 udev dbus openssh-server openssh-client
	netcat-openbsd dmidecode iproute2 python3 dkms openssl)
# the kernel's modules the guests load: KVM, and the link's virtio-net
kernel_modules=(kvm kvm-amd irqbypass ccp virtio_net net_failover failover)

# make_debs: debs, the two packages of make deb (the host's release: bookworm)
make_debs() {
	local d=$vm_scratch/deb
	version=$(sed -n 's/^#define THPCOW_VERSION[[:space:]]*"\(.*\)"$/\1/p' include/uapi/thpcow.h)
	make -s deb DEB_DIR="$d" >"$d.log" 2>&1 || {
		tail -n 20 "$d.log"
		echo "make deb failed"
		return 1
	}
	debs=("$d/thpcow-dkms_${version}_all.deb" "$d/thpcowctl_${version}_amd64.deb")
}

# resolve BASE: into $vm_scratch/needed (name version), what installing
# root_packages, the kernel's headers and the two .debs takes in BASE,
# downloaded into the cache's apt/bookworm (packages.t's too) if not there
# yet.
resolve() {
	local archives=$vm_cache/apt/$suite log=$vm_scratch/download.log
	mkdir -p "$archives/partial" "$archives/cache"
	apt_root() {
		apt-get -q -y -o APT::Sandbox::User=root -o Dir::Cache="$archives/cache" \
			-o Dir::Cache::archives="$archives" -o Dir::State::status="$1/var/lib/dpkg/status" \
			-o Debug::NoLocking=1 -o APT::Install-Recommends=false "${@:2}" install \
			"${root_packages[@]}" "linux-headers-$release" "${debs[@]}"
	}
	exec 8>"$vm_cache/$series/.lock"
	flock 8
	apt_root "$1" --download-only >"$log" 2>&1 || {
		tail -n 20 "$log"
		echo "downloading what the root needs failed"
		return 1
	}
	apt_root "$1" -s 2>/dev/null | sed -n 's/^Inst \([^ ]*\) \(\[[^]]*\] \)\?(\([^ ]*\) .*/\1 \3/p' |
		grep -v '^thpcow' | sort >"$vm_scratch/needed"
	flock -u 8
}

# libvirt_root: the cached root (prints its path): vm/rootfs's with what
# $vm_scratch/needed lists installed from a local repository of it (the
# root's only apt source), KVM's and virtio-net's modules, made on the host
# if missing or made from another list, kernel or root.
libvirt_root() {
	local base key
	base=$(vm/rootfs "$suite") || { echo "no $suite root filesystem (vm/rootfs)" >&2; return 1; }
	resolve "$base" >&2 || return 1
	key=$({ echo "recipe $recipe $release ${kernel_modules[*]}"; cat "$base/.thpcow-rootfs" "$vm_scratch/needed"; } |
		sha256sum | cut -d' ' -f1)
	cached_root "$vm_cache/rootfs/$suite-libvirt" "$key" "$base" \
		"libvirt, QEMU and the rest installed on the host, under chroot" libvirt_install
}

# libvirt_install ROOT: the packages $vm_scratch/needed installed in ROOT
# from the local repository, and the kernel's modules it needs.
libvirt_install() {
	local tmp=$1 patterns=() m
	local_repo "$tmp" "$suite" <"$vm_scratch/needed" || return 1
	in_root "$tmp" "apt-get -q update && apt-get -q -y install $(tr ' ' = <"$vm_scratch/needed" | tr '\n' ' ')" || return 1
	# the modules, where the kernel's package puts them, for modprobe
	for m in "${kernel_modules[@]}"; do patterns+=("*/$m.ko"); done
	dpkg-deb --fsys-tarfile "$(compgen -G "$kdir/debs/linux-image-*.deb" | head -n1)" |
		tar -x -C "$tmp" --wildcards "${patterns[@]}" "*/modules.order" "*/modules.builtin*" || return 1
	depmod -b "$tmp" "$release"
}

# host ROOT NAME N: ROOT made host NAME, 10.87.0.N on the link (the NIC
# whose MAC ends in N).
host() {
	echo "$2" >"$1/etc/hostname"
	printf '127.0.0.1\tlocalhost\n10.87.0.1\tlv-src\n10.87.0.2\tlv-dst\n' >"$1/etc/hosts"
	printf '[Match]\nMACAddress=52:54:00:87:00:0%s\n\n[Network]\nAddress=10.87.0.%s/24\n' "$3" "$3" \
		>"$1/etc/systemd/network/10-link.network"
	od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$1/etc/machine-id"
	echo >>"$1/etc/machine-id"
}

# images: $vm_scratch/src.img and dst.img, two hosts of one copy of the
# cached root with the two .debs installed (DKMS), ssh between them, the
# domain's firmware, and on the destination the test unit.
images() {
	local cached root=$vm_scratch/root t0=$SECONDS
	cached=$(libvirt_root) || { echo "preparing the libvirt root failed"; return 1; }
	rm -rf "$root"
	cp -a "$cached" "$root" || return 1
	mkdir -p "$root/var/local/thpcow-debs"
	cp "${debs[@]}" "$root/var/local/thpcow-debs/" || return 1
	in_root "$root" "apt-get -q -y install /var/local/thpcow-debs/*.deb &&
		{ dkms status -k $release thpcow | grep -q ': installed' || dkms install -k $release thpcow/$version; }" ||
		return 1
	grep -E 'DKMS|dkms' "$vm_scratch/chroot.log" | tail -n 5
	# root's key, accepted by both hosts, which share their host key
	in_root "$root" "rm -f /root/.ssh/id_ed25519* && ssh-keygen -q -t ed25519 -N '' -f /root/.ssh/id_ed25519" ||
		return 1
	cp "$root/root/.ssh/id_ed25519.pub" "$root/root/.ssh/authorized_keys"
	echo "lv-src,lv-dst,10.87.0.1,10.87.0.2 $(cut -d' ' -f1,2 "$root/etc/ssh/ssh_host_ed25519_key.pub")" \
		>"$root/root/.ssh/known_hosts"
	printf 'kvm_amd\nvirtio_net\n' >"$root/etc/modules-load.d/thpcow-test.conf"
	systemctl --quiet --root="$root" enable systemd-networkd.service || return 1
	rm -f "$root/etc/libvirt/qemu/networks/autostart/default.xml"
	mkdir -p "$root/var/lib/libvirt/boot"
	cp prog/migfw.bin "$root/var/lib/libvirt/boot/migfw.bin" || return 1
	# (the guest's sh expands $$: systemd's $)
	sysguest_test_unit "$root" tests/guest/libvirt.sh \
		'/opt/thpcow-test/tests/guest/libvirt.sh run >tap.new 2>&1; mv tap.new tap; sync; ssh -o BatchMode=yes -o ConnectTimeout=10 root@lv-src systemctl --no-block poweroff' \
		"${inguest_files[@]}" vm/lib/qemu.py tests/lib/qemustat.py || return 1
	# the source runs none: the destination drives it, then powers it off
	systemctl --quiet --root="$root" disable thpcow-test.service || return 1
	host "$root" lv-src 1
	sysguest_disk "$root" "$vm_scratch/src.img" || return 1
	host "$root" lv-dst 2
	systemctl --quiet --root="$root" enable thpcow-test.service || return 1
	sysguest_disk "$root" "$vm_scratch/dst.img" || return 1
	rm -rf "$root"
	echo "the two root disks made in $((SECONDS - t0)) s"
}

# free_port: a TCP port nothing listens on, on the loopback
free_port() {
	local p
	for ((p = 20000 + RANDOM % 20000; ; p++)); do
		ss -Htln "sport = :$p" | grep -q . || { echo "$p"; return; }
	done
}

# two_hosts: both guests booted, the source first (it listens on the
# link); the destination runs the test and powers the source off; its TAP
# read back from its disk with debugfs.
two_hosts() {
	local port rc=0 src_pid i tap=$vm_scratch/tap t0=$SECONDS nic=virtio-net-pci,romfile=
	version='' debs=()
	make -s -C prog migfw.bin || return 1
	make_debs || return 1
	kdir=$(vm/fetch-kernel "$series") || { echo "no $series kernel (vm/fetch-kernel $series)"; return 1; }
	release=$(cat "$kdir/release")
	images || return 1
	port=$(free_port)
	(
		sysguest_name=src
		sysguest_qemu=(-uuid 8a7f0001-0000-4000-8000-000000000001 -pidfile "$vm_scratch/src.pid"
			-netdev "socket,id=link,listen=127.0.0.1:$port" -device "$nic,netdev=link,mac=52:54:00:87:00:01")
		sysguest_boot "$kdir" "$vm_scratch/src.img" "$timeout" single
	) &
	src_pid=$!
	for ((i = 0; i < 300; i++)); do
		ss -Htln "sport = :$port" | grep -q . && break
		sleep 0.2
	done
	(
		sysguest_name=dst
		sysguest_qemu=(-uuid 8a7f0002-0000-4000-8000-000000000002
			-netdev "socket,id=link,connect=127.0.0.1:$port" -device "$nic,netdev=link,mac=52:54:00:87:00:02")
		sysguest_boot "$kdir" "$vm_scratch/dst.img" "$timeout" single
	) || rc=$?
	# the destination powered the source off; a minute for it to get there
	for ((i = 0; i < 60; i++)); do
		kill -0 "$src_pid" 2>/dev/null || break
		sleep 1
	done
	if kill -0 "$src_pid" 2>/dev/null; then
		echo "the source still runs: stopped"
		kill "$(cat "$vm_scratch/src.pid")"
	fi
	wait "$src_pid"
	sysguest_name=dst sysguest_problems "$rc" "$timeout" || return 1
	sysguest_name=src sysguest_problems 0 "$timeout" || return 1
	debugfs -R "dump /var/lib/thpcow-test/tap $tap" "$vm_scratch/dst.img" >/dev/null 2>&1
	[[ -s $tap ]] || {
		tail -n 40 "$vm_scratch/console-dst.log"
		echo "tests/guest/libvirt.sh left no results"
		return 1
	}
	sed 's/^/guest: /' "$tap"
	echo "two hosts: $((SECONDS - t0)) s"
	grep -q '^# Totals: pass:[0-9]* fail:0 skip:0' "$tap"
}

[[ $(. /etc/os-release && echo "${VERSION_CODENAME:-}") == "$suite" ]] ||
	{ echo "TAP version 13"; echo "1..0 # SKIP make deb builds for $suite on $suite only"; exit 0; }
tap_run --long two_hosts # libvirt 9.0 on two hosts: precopy, control, postcopy, the hook failing, a restart
