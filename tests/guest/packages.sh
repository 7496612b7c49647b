#!/usr/bin/env bash
# tests/guest/packages.sh STAGE: inside the guest of tests/vm/packages.t,
# which boots a Debian root of its own with systemd as init, offline, with
# the packages of `make deb` in /var/local/thpcow-debs and a local apt
# repository of what they need (dkms, a compiler, the running kernel's
# headers) as the root's only apt source. docs/install.md, as an operator
# types it:
#   install  apt-get install of the packages (DKMS builds the module),
#            systemctl enable --now thpcow with a cgroup rule, a process in
#            that cgroup gets whole THPs, the checks on one guest, the
#            shipped libvirt hook and metrics units used, thpcowctl
#            check, reload
#   reboot   (the next boot) the rule is back; the module reloaded as after
#            an upgrade; Secure Boot's failure as far as a guest without
#            UEFI shows it
#   upgrade  (the next boot) apt-get install of the same tree as the next
#            version (make deb DEB_VERSION=, in /var/local/thpcow-debs/next)
#            with thpcow.service, the metrics timer, a rule and a process
#            under it running: all of it as it was, the metrics fresh, the
#            loaded module the older one until thpcowctl reload; then the
#            downgrade back, the same
#   update   (trixie) a kernel update: the next kernel and its headers
#            installed with apt, DKMS builds thpcow for it through
#            thpcow's kernel hook (7.x widened in /etc/dkms/thpcow.conf)
#   purge    (the next boot, signatures no longer enforced; after update
#            into the next kernel) the rule is back; uninstall and purge
#            leave nothing behind
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$top/tests/lib/tap.sh"
# shellcheck source=SCRIPTDIR/../lib/inguest.sh
source "$top/tests/lib/inguest.sh" # key, wrf_in_machine_slice, unit_until, cgroup_rules, hook_starts_collapse,
# monitoring

wrf=$top/prog/wrf
debs=/var/local/thpcow-debs
out=/var/lib/thpcow-test
release=$(uname -r)
release_re=${release//./\\.} # 6.12.118+deb13-amd64 as a regular expression
release_re=${release_re//+/\\+}
version=$(cat "$out/version")
stats=/sys/kernel/debug/thpcow/stats

# dkms_installed VERSION RELEASE_RE: a regular expression of the line of
# dkms status thpcow for VERSION installed for RELEASE_RE (DKMS 3's
# "thpcow/VERSION, RELEASE, ...", Debian 11's 2.8 "thpcow, VERSION, RELEASE, ...")
dkms_installed() { echo "(^|"$'\n'")thpcow(/|, )${1//./\\.}, $2, x86_64: installed"; }
substituted() { awk '$1 == "substituted" { print $2 }' "$stats"; }

# as docs/install.md: apt-get install linux-headers-$(uname -r) linux-headers-amd64
# ./thpcow-dkms_*.deb ./thpcowctl_*.deb (the meta package as packages.t
# says: none on Ubuntu's kernel, whose is linux-headers-generic)
apt_install() {
	local t0=$SECONDS built meta
	meta=$(cat "$out/headers-meta")
	cd "$debs" || return 1
	apt-get -q update >"$out/apt.log" 2>&1 || { cat "$out/apt.log"; return 1; }
	apt-get -q -y install "linux-headers-$release" ${meta:+"$meta"} ./thpcow-dkms_*.deb ./thpcowctl_*.deb \
		>>"$out/apt.log" 2>&1 || { tail -n 40 "$out/apt.log"; return 1; }
	grep -E 'DKMS|dkms' "$out/apt.log" | grep -v thpcow-repo | tail -n 15
	# (dkms 3.2 logs its build's time)
	built=$(find /var/lib/dkms/thpcow -name make.log -exec sed -n 's/^# elapsed time: //p' {} +)
	echo "apt-get update and install: $((SECONDS - t0)) s${built:+, of which the DKMS build $built}"
	dkms status thpcow | grep -q ': installed' || tail -n 20 "/var/lib/dkms/thpcow/$version/build/make.log"
	check_match "$(dkms status thpcow)" "$(dkms_installed "$version" "$release_re")" "dkms status thpcow"
	# (compressed as the kernel's own modules: xz on 6.12, zstd on Ubuntu's 6.8)
	check_match "$(modinfo -F filename thpcow)" "^/lib/modules/$release_re/updates/dkms/thpcow\.ko(\.xz|\.zst)?$" \
		"the module DKMS installed"
	check_eq "$(systemctl is-enabled thpcow.service)" disabled "thpcow.service after install"
	[[ ! -d /sys/module/thpcow ]] || {
		echo "installing loaded the module"
		return 1
	}
}

# docs/install.md's prerequisites, on this kernel.
prerequisites() {
	check_match "$(cat /sys/kernel/mm/transparent_hugepage/enabled)" '\[(always|madvise)\]' "THP enabled"
	check_eq "$(cat /sys/kernel/mm/transparent_hugepage/use_zero_page)" 1 "use_zero_page"
	check_eq "$(stat -fc %T /sys/fs/cgroup)" cgroup2fs "the cgroup file system"
	check_match "$(thpcowctl probe)" $'\nwithout thpcow: +splits\n' "thpcowctl probe"
	check_match "$(thpcowctl probe)" $'\nseries supported: +yes\n' "thpcowctl probe"
}

enable_now() {
	printf '# tests/vm/packages.t\ncgroup /machine.slice zero\n' >/etc/thpcow.conf
	systemctl enable --now thpcow
	check_eq "$(systemctl show -P ActiveState thpcow.service)/$(systemctl show -P Result thpcow.service)" \
		active/success "thpcow.service"
	check_eq "$(cgroup_rules)" "/machine.slice zero" "the cgroup rules"
	check_match "$(thpcowctl status)" $'module loaded: +yes' "thpcowctl status"
	check_match "$(journalctl -u thpcow.service --no-pager -o cat)" \
		$'/etc/thpcow.conf:2: cgroup /machine.slice zero\napplied /etc/thpcow.conf' "the journal"
}

# wrf in machine.slice: a whole THP per 2 MiB on write after read.
write_after_read() {
	local before
	before=$(substituted)
	wrf_in_machine_slice
	check_eq "$(($(substituted) - before))" 8 "substituted"
}

# start_vm1: a QEMU stand-in in machine.slice (wrf holding 16 MiB it wrote
# after reading) whose pid is where libvirt keeps it.
start_vm1() {
	mkdir -p /run/libvirt/qemu
	systemd-run --quiet --slice=machine.slice --unit=vm1 -p StandardOutput=file:/run/vm1.out \
		"$wrf" --size 16 --hold
	for _ in $(seq 100); do grep -q ready /run/vm1.out 2>/dev/null && break; sleep 0.2; done
	systemctl show -P MainPID vm1 >/run/libvirt/qemu/vm1.pid
}
anon_huge_kb() { awk '$1 == "AnonHugePages:" { print $2 }' "/proc/$1/smaps_rollup"; }

# docs/install.md's checks on one guest.
one_guest() {
	local pid
	start_vm1
	pid=$(cat /run/libvirt/qemu/vm1.pid)
	check_match "$(thpcowctl get --pid "$pid")" $'effective mode: +zero\neffective scope: +cgroup' \
		"thpcowctl get --pid: the cgroup rule in effect"
	check_match "$(thpcowctl stats)" $'substituted +[1-9]' "thpcowctl stats"
	check_eq "$(anon_huge_kb "$pid")" 16384 "AnonHugePages in smaps_rollup"
	systemctl stop vm1
}

# The libvirt hook the package installs where libvirt reads it, called as
# libvirt calls it: off as installed; with "collapse-hook on" in
# /etc/thpcow.conf, it starts thpcow-collapse@NAME (tests/vm/systemd.t runs
# the rest). Used here so that the purge has something to remove.
libvirt_hook() {
	local unit=thpcow-collapse@vm2.service
	check_eq "$(dpkg-query -W -f='${Conffiles}' thpcowctl | awk '$1 == "/etc/libvirt/hooks/qemu.d/thpcow" { print $1 }')" \
		/etc/libvirt/hooks/qemu.d/thpcow "the hook: a conffile"
	check_eq "$(/etc/libvirt/hooks/qemu.d/thpcow vm2 migrate begin - </dev/null)" "" "the hook's output"
	sleep 1
	check_eq "$(systemctl show -P ActiveState "$unit")" inactive "$unit: not started, the hook being off"
	echo 'collapse-hook on' >>/etc/thpcow.conf
	thpcowctl apply --check
	hook_starts_collapse vm2
}

# The metrics units the package ships, not enabled; run once, as the timer
# would, into Debian's textfile directory (node-exporter's package makes it).
metrics() {
	local dir=/var/lib/prometheus/node-exporter
	check_eq "$(systemctl is-enabled thpcow-metrics.timer)" disabled "thpcow-metrics.timer after install"
	mkdir -p "$dir"
	systemctl start thpcow-metrics.service
	check_eq "$(systemctl show -P Result thpcow-metrics.service)" success "thpcow-metrics.service"
	check_match "$(cat "$dir"/thpcow*.prom)" $'\nthpcow_' "what it wrote"
	systemctl enable --now thpcow-metrics.timer
}

reload_applies() {
	printf '# tests/vm/packages.t, edited\ncgroup /machine.slice copy\n' >/etc/thpcow.conf
	thpcowctl apply --check
	systemctl reload thpcow
	check_eq "$(cgroup_rules)" "/machine.slice copy" "the cgroup rules after reload"
}

# The next boot: the edited file applied again (and after the boot in which
# the module was refused).
after_reboot() {
	local state
	state=$(systemctl is-system-running --wait)
	[[ $state == running ]] || systemctl --failed --no-pager
	check_eq "$state" running "the system"
	check_eq "$(systemctl show -P ActiveState thpcow.service)/$(systemctl show -P Result thpcow.service)" \
		active/success "thpcow.service"
	check_eq "$(cgroup_rules)" "/machine.slice copy" "the cgroup rules"
}

# as docs/install.md after an upgrade: the module reloaded, the file applied again.
reload_module() {
	systemctl stop thpcow
	thpcowctl unload
	systemctl start thpcow
	check_eq "$(systemctl show -P ActiveState thpcow.service)" active "thpcow.service"
	check_eq "$(cgroup_rules)" "/machine.slice copy" "the cgroup rules"
}

# An upgrade (N -> N+1) and the downgrade back, as apt-get install of the
# packages: with thpcow.service, the metrics timer (enabled by metrics), the
# rule (reload_applies') and vm1 running, each leaves them as they were:
# thpcow.service not restarted, the timer running and the metrics file
# written again after it, the rule kept, vm1's THPs whole, a new process's
# too; DKMS built the installed version. The loaded module stays the one
# loaded at boot (N), which thpcowctl status says while N+1 is installed.
# (0.2.0's preinst stopped all three on upgrade, and nothing started them.)
upgrade_keeps() {
	local next pid
	next=$(cat "$out/next-version")
	check_eq "$(thpcowctl status | grep -c '^The loaded module')" 0 "status: the same version"
	start_vm1
	pid=$(cat /run/libvirt/qemu/vm1.pid)
	check_eq "$(anon_huge_kb "$pid")" 16384 "vm1's AnonHugePages before"
	install_version "$next" next/ "upgrade" || return 1
	kept "$next" "$pid"
	check_match "$(thpcowctl status)" \
		$'\nThe loaded module is '"${version//./\\.}"', the installed one '"${next//./\\.}"': reload it \(thpcowctl reload\)' \
		"status after the upgrade"
	check_match "$(thpcowctl check)" "^THPCOW WARNING - .*the loaded module ${version//./\\.} is older than the installed ${next//./\\.}" \
		"check after the upgrade"
}
# thpcowctl reload with vm1 running: the installed module loaded, the rule
# applied again, the timer running, vm1's THPs kept. (Its refusal during an
# incoming migration is tools/thpcowctl/tests/test_ops.c's: a stand-in QEMU would
# have to name its own vCPU thread, which only a program of its own can.)
reload_upgraded() {
	local next
	next=$(cat "$out/next-version")
	thpcowctl reload
	check_eq "$(cat /sys/module/thpcow/version)" "$next" "the loaded module after reload"
	check_eq "$(thpcowctl status | grep -c '^The loaded module')" 0 "status: the same version"
	check_eq "$(cgroup_rules)" "/machine.slice copy" "the cgroup rules"
	check_eq "$(systemctl show -P ActiveState thpcow-metrics.timer)" active "thpcow-metrics.timer"
	check_eq "$(anon_huge_kb "$(cat /run/libvirt/qemu/vm1.pid)")" 16384 "vm1's AnonHugePages"
	wrf_in_machine_slice
}
downgrade_keeps() {
	local next
	next=$(cat "$out/next-version")
	install_version "$version" "" "downgrade" --allow-downgrades || return 1
	kept "$version" "$(cat /run/libvirt/qemu/vm1.pid)"
	check_match "$(thpcowctl status)" $'\nThe loaded module is '"${next//./\\.}"', the installed one '"${version//./\\.}" \
		"status after the downgrade"
	thpcowctl reload
	check_eq "$(cat /sys/module/thpcow/version)" "$version" "the loaded module after reload"
	systemctl stop vm1
}
# install_version VERSION DIR WHAT [APT-OPTION...]: apt-get install of
# VERSION's two packages from $debs/DIR; timestamps for kept.
install_version() {
	local v=$1 t0=$SECONDS
	since=$(systemctl show -P ActiveEnterTimestampMonotonic thpcow.service)
	apt-get -q -y "${@:4}" install "$debs/$2thpcow-dkms_${v}_all.deb" "$debs/$2thpcowctl_${v}_amd64.deb" \
		>"$out/$3.log" 2>&1 || { tail -n 40 "$out/$3.log"; return 1; }
	grep -E '^(Unpacking|Setting up) thpcow|systemd|DKMS' "$out/$3.log" | tail -n 12
	echo "apt-get install ($3 to $v): $((SECONDS - t0)) s"
	installed_at=$(date +%s)
}
# kept VERSION PID: after install_version, all as it was.
kept() {
	local prom=/var/lib/prometheus/node-exporter/thpcow.prom age
	check_eq "$(dpkg-query -W -f '${Version} ' thpcow-dkms thpcowctl)" "$1 $1 " "the packages' versions"
	check_match "$(dkms status thpcow)" "$(dkms_installed "$1" "$release_re")" "dkms status thpcow"
	check_eq "$(systemctl show -P ActiveState thpcow.service)/$(systemctl show -P ActiveEnterTimestampMonotonic \
		thpcow.service)" "active/$since" "thpcow.service: active, not restarted"
	check_eq "$(systemctl show -P ActiveState thpcow-metrics.timer)" active "thpcow-metrics.timer"
	check_eq "$(cgroup_rules)" "/machine.slice copy" "the cgroup rules"
	check_eq "$(anon_huge_kb "$2")" 16384 "vm1's AnonHugePages"
	wrf_in_machine_slice
	# the timer runs the service every minute (and 5 s): written again
	for _ in $(seq 90); do (($(stat -c %Y "$prom") > installed_at)) && break; sleep 1; done
	age=$(($(date +%s) - $(stat -c %Y "$prom")))
	echo "the metrics file: $age s old, $(($(stat -c %Y "$prom") - installed_at)) s after apt-get"
	check_eq "$((age < 60)):$(($(stat -c %Y "$prom") > installed_at))" 1:1 \
		"the metrics file: written after apt-get, less than a minute old"
}

# A kernel DKMS built no module for (declined, or its build failed), as
# docs/install.md's "Kernel updates" says: thpcow.service skipped, not failed,
# with one journal line. Here this kernel's module moved away for a while.
no_module_skips() {
	local ko
	systemctl stop thpcow
	thpcowctl unload
	ko=$(modinfo -F filename thpcow)
	mv "$ko" /run/thpcow-test.ko && depmod
	systemctl start thpcow
	check_eq "$(systemctl show -P ActiveState thpcow.service)/$(systemctl show -P Result thpcow.service)" \
		inactive/exec-condition "thpcow.service"
	check_match "$(journalctl -u thpcow.service --no-pager -o cat)" \
		"thpcow.service skipped: Linux $release_re has no thpcow module \(dkms status thpcow" "the journal"
	mv /run/thpcow-test.ko "$ko" && depmod
	systemctl start thpcow
	check_eq "$(systemctl show -P ActiveState thpcow.service)" active "thpcow.service with the module back"
}

# docs/install.md's Secure Boot section, as far as a guest without UEFI goes:
# DKMS signed the module with the key docs/install.md says to enrol; mokutil
# finds no EFI variables; a kernel that enforces module signatures (as
# Secure Boot makes it; here module.sig_enforce, which can be turned on at
# run time) refuses the module with docs/install.md's line, thpcow.service fails
# with it and thpcowctl status says the module is not loaded, and, with a
# stand-in SecureBoot variable that says on (a tmpfs over /sys/firmware),
# that it loads only if signed with an enrolled key.
secure_boot() {
	local cert sb=/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c
	check_eq "$(modinfo -F signer thpcow)" "DKMS module signing key" "the module's signer"
	cert=$(openssl x509 -inform DER -in /var/lib/dkms/mok.pub -noout -serial | sed 's/^serial=0*//')
	check_eq "$(modinfo -F sig_key thpcow | tr -d ':' | sed 's/^0*//')" "$cert" \
		"the key the module is signed with"
	check_match "$(mokutil --sb-state 2>&1)" "EFI variables are not supported" "mokutil --sb-state"
	check_match "$(mokutil --import /var/lib/dkms/mok.pub 2>&1 </dev/null)" "EFI variables are not supported" \
		"mokutil --import"
	systemctl stop thpcow
	thpcowctl unload
	echo 1 >/sys/module/module/parameters/sig_enforce
	if systemctl start thpcow; then
		echo "thpcow.service started with module signatures enforced"
		return 1
	fi
	check_eq "$(systemctl show -P ActiveState thpcow.service)" failed "thpcow.service"
	check_match "$(journalctl -u thpcow.service --no-pager -o cat)" \
		"modprobe: ERROR: could not insert 'thpcow': Key was rejected by service" "the journal"
	check_match "$(thpcowctl status)" $'module loaded: +no\n' "thpcowctl status"
	mount -t tmpfs thpcow-test /sys/firmware
	mkdir -p "${sb%/*}"
	printf '\006\000\000\000\001' >"$sb"
	check_match "$(thpcowctl status)" \
		$'secure boot: +yes\n.*\nSecure Boot is on: the module loads only if signed with an enrolled key' \
		"thpcowctl status with Secure Boot on"
	umount /sys/firmware
	systemctl reset-failed thpcow
}

# A kernel update as unattended-upgrades makes it: apt-get install of the
# next kernel and its headers, as linux-image-amd64 and linux-headers-amd64
# bring them (7.x's headers alone bring no kernel: no modules.dep, and
# DKMS 3.2 runs no depmod for it), succeeds and thpcow is built for it, in
# that kernel's modules.dep. thpcow does not
# build for 7.x by default (it gives whole THPs by itself): widened as
# docs/install.md says, for copy and split.
kernel_update() {
	local next t0=$SECONDS
	next=$(cat "$out/next-release")
	mkdir -p /etc/dkms
	echo 'BUILD_EXCLUSIVE_KERNEL="^(5\.10|6\.1|6\.12|7\.3)\."' >/etc/dkms/thpcow.conf
	# (INITRD=No: no initramfs made, as for the root's first kernel; the
	# guest boots its own)
	INITRD=No apt-get -q -y install "linux-image-$next" "linux-headers-$next" >"$out/update.log" 2>&1 || {
		tail -n 40 "$out/update.log"
		return 1
	}
	grep -iE 'thpcow|dkms|depmod|^Setting up linux-' "$out/update.log" | tail -n 30
	echo "apt-get install of the kernel update: $((SECONDS - t0)) s"
	check_match "$(dkms status thpcow)" "$(dkms_installed "$version" "${next//+/\\+}")" \
		"dkms status thpcow: built for $next"
	check_match "$(modinfo -k "$next" -F filename thpcow)" "^/lib/modules/${next//+/\\+}/updates/dkms/thpcow\.ko" \
		"the module for $next"
	check_eq "$(systemctl is-enabled thpcow.service)" enabled "thpcow.service"
}

# After the kernel update's reboot: the new kernel runs.
on_next_kernel() {
	check_eq "$release" "$(cat "$out/next-release")" "uname -r"
	check_eq "$(modinfo -F filename thpcow | sed 's|/updates/.*||')" "/lib/modules/$release" "the module"
}

# as docs/install.md: disable, unload, purge; nothing of thpcow is left.
purge() {
	systemctl disable --now thpcow
	thpcowctl unload
	apt-get -q -y purge thpcow-dkms thpcowctl >"$out/purge.log" 2>&1 || { cat "$out/purge.log"; return 1; }
	# the widening kernel_update wrote: the operator's file, not the
	# packages' (docs/install.md says to delete it)
	rm -f /etc/dkms/thpcow.conf
	check_eq "$(dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' 'thpcow*' 2>/dev/null | grep -v '^[up]n')" "" \
		"thpcow packages known to dpkg"
	# (*thpcow-test*: this test's unit, dpkg and apt settings)
	check_eq "$(find /usr/src /lib/modules /var/lib/dkms /etc /lib/systemd /usr/lib/systemd \
		/usr/sbin /usr/share /usr/libexec /var/lib/prometheus -name '*thpcow*' ! -name '*thpcow-test*' \
		2>/dev/null | sort)" "" "files named thpcow (the hooks, the units, the .prom file among them)"
	check_eq "$(dkms status thpcow)" "" "dkms status thpcow"
	[[ ! -d /sys/module/thpcow ]] || {
		echo "thpcow is still loaded"
		return 1
	}
}

case ${1:-} in
install) tap_run apt_install prerequisites enable_now write_after_read one_guest libvirt_hook metrics monitoring \
	reload_applies ;;
reboot) tap_run after_reboot reload_module no_module_skips secure_boot ;;
upgrade) tap_run after_reboot upgrade_keeps reload_upgraded downgrade_keeps ;;
update) tap_run kernel_update ;;
purge)
	if [[ -e $out/next-release ]]; then
		tap_run after_reboot on_next_kernel purge
	else
		tap_run after_reboot purge
	fi
	;;
*) echo "usage: packages.sh install|reboot|upgrade|update|purge" >&2; exit 2 ;;
esac
