#!/usr/bin/env bash
# shellcheck disable=SC2317 # the cases are called through tap_run
# tests/guest/libvirt.sh run | serial DOMAIN SEND EXPECT: inside the
# guests of tests/vm/libvirt.t, two libvirt hosts (Debian 12's libvirt
# 9.0 and QEMU 7.2, KVM, thpcow's packages installed, nothing enabled)
# joined by a private link: lv-src (10.87.0.1) and lv-dst (10.87.0.2).
#   run     on lv-dst, as its test unit: the cases below, each a `virsh
#           migrate` typed on lv-src (over ssh, as an operator would) of
#           the domain vm1 into lv-dst, where thpcow is configured and the
#           migrated guest measured; TAP
#   serial  the domain's serial port (its pty, `virsh ttyconsole`): send
#           SEND, wait for EXPECT (on lv-src too, through ssh)
# vm1 is migfw (prog/migfw.bin, vm/mig.py's no-OS guest) as a 256 MiB KVM
# domain's firmware, defined from plain XML on lv-src: it leaves its RAM
# untouched until told W (write one byte per 4 KiB, then D) or V (check
# them, then K).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$top/tests/lib/tap.sh"
# shellcheck source=SCRIPTDIR/../lib/inguest.sh
source "$top/tests/lib/inguest.sh" # key, unit_until

mib=256
ranges=$((mib / 2))
# the ranges migfw writes (all but the first 2 MiB)
written=$((ranges - 1))
src=lv-src
out=/var/lib/thpcow-test
xml=$out/vm1.xml

# serial DOMAIN SEND EXPECT: SEND on the domain's serial port, then read
# until EXPECT (migfw's 'R', ready, may come first).
serial() {
	local pty c fd
	pty=$(virsh ttyconsole "$1") || return 1
	# raw: no line discipline between QEMU and migfw, no echo back to it
	stty -F "$pty" raw -echo || return 1
	exec {fd}<>"$pty"
	printf %s "$2" >&"$fd"
	while IFS= read -r -N1 -t 600 c <&"$fd"; do
		[[ $c == "$3" ]] && { exec {fd}>&-; return 0; }
		[[ $c == R ]] || { echo "$1 said '$c', not '$3'"; return 1; }
	done
	echo "$1 said nothing in 10 minutes (waiting for '$3')"
	return 1
}

if [[ ${1:-} == serial ]]; then
	serial "${@:2}"
	exit
fi
[[ ${1:-} == run ]] || { echo "usage: libvirt.sh run | serial DOMAIN SEND EXPECT" >&2; exit 2; }

# on_src COMMAND...: COMMAND on lv-src, as root, over ssh
on_src() { ssh -o BatchMode=yes -o ConnectTimeout=10 "root@$src" "$@"; }

# since T0: seconds since $EPOCHREALTIME was T0
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

# at_least GOT MIN WHAT
at_least() {
	(($1 >= $2)) && return
	echo "$3: got $1, want at least $2"
	return 1
}

# qemustat: the QEMU of vm1 on this host ($pid): its faults, RAM, KVM's mappings
qemustat() { python3 "$top/tests/lib/qemustat.py" "$pid" "$mib"; }

# conf LINE...: /etc/thpcow.conf of these lines, applied (thpcow.service's reload)
conf() {
	{
		echo "# tests/guest/libvirt.sh"
		printf '%s\n' "$@"
	} >/etc/thpcow.conf
	thpcowctl apply --check
	systemctl reload-or-restart thpcow.service
}

# precopy_in: vm1 started on lv-src and migrated here, typed on lv-src;
# $pid its QEMU here.
precopy_in() {
	local t0
	on_src virsh start vm1
	t0=$EPOCHREALTIME
	on_src virsh migrate --live vm1 qemu+ssh://lv-dst/system || { logs; return 1; }
	echo "virsh migrate --live (on lv-src): $(since "$t0") s"
	migrated
}

# migrated: vm1 runs here and is shut off on lv-src; $pid its QEMU, in
# the scope libvirt made for it through systemd-machined.
migrated() {
	check_eq "$(virsh domstate vm1)" running "vm1 on lv-dst"
	check_eq "$(on_src virsh domstate vm1)" "shut off" "vm1 on lv-src"
	pid=$(cat /run/libvirt/qemu/vm1.pid)
	check_match "$(sed -n 's/^0:://p' "/proc/$pid/cgroup")" \
		"^/machine\.slice/machine-qemu\\\\x2d[0-9]+\\\\x2dvm1\.scope(/|$)" "QEMU's cgroup"
}

# logs: what the two libvirt daemons said last
logs() {
	echo "lv-src's libvirtd:"
	on_src journalctl -u libvirtd -n 20 --no-pager -o cat
	echo "lv-dst's libvirtd:"
	journalctl -u libvirtd -n 20 --no-pager -o cat
}

# leftovers: whatever a case left running (one that failed half way)
# destroyed, on both hosts, so that the next starts afresh and libvirt-guests
# does not wait minutes at power-off for migfw to shut down
leftovers() {
	virsh list --name | xargs -r -n1 virsh destroy
	on_src 'virsh list --name | xargs -r -n1 virsh destroy'
}

# write_verify: the migrated guest writes its RAM and checks it; faults
# (per 2 MiB of its RAM) that its writes cost QEMU, KVM's 2 MiB and
# 4 KiB mappings after the check, thpcow's substitutions in the
# domain's row of thpcowctl usage (by its machine name).
write_verify() {
	local before after
	before=$(qemustat)
	serial vm1 W D
	after=$(qemustat)
	faults=$(($(key minflt "$after") - $(key minflt "$before")))
	per_2m=$(awk -v f="$faults" -v r="$ranges" 'BEGIN { printf "%.2f", f / r }')
	serial vm1 V K
	after=$(qemustat)
	pages_2m=$(key pages_2m "$after") pages_4k=$(key pages_4k "$after")
	substituted=0
	if command -v thpcowctl >/dev/null; then
		thpcowctl usage -o SCOPE,TARGET,MACHINE,SUBSTITUTED,THP_MIB
		substituted=$(thpcowctl usage --machine vm1 -n -r -o SUBSTITUTED | awk '{ s += $1 } END { print s + 0 }')
	fi
	echo "faults per 2 MiB: $per_2m ($faults), KVM pages_2m: $pages_2m of $ranges ranges, pages_4k: $pages_4k," \
		"substituted: $substituted, AnonHugePages: $(key anon_huge_kb "$after") kB; data verified"
}

# per_2m_at_most MAX
per_2m_at_most() {
	awk -v p="$per_2m" -v m="$1" 'BEGIN { exit !(p <= m) }' && return
	echo "faults per 2 MiB: got $per_2m, want at most $1"
	return 1
}

# Both hosts up and apart: their own hostname and host UUID, KVM, no
# libvirt network; on lv-dst thpcow enabled as docs/install.md says; vm1
# defined on lv-src from its XML.
hosts() {
	local i
	for ((i = 0; i < 120; i++)); do
		on_src true 2>/dev/null && break
		sleep 1
	done
	on_src virsh version
	echo "kernel: $(uname -r); $(virsh version | grep -i 'running hypervisor')"
	check_eq "$(on_src hostname) $(hostname)" "lv-src lv-dst" "the hostnames"
	check_match "$(on_src virsh capabilities | grep -m1 '<uuid>') $(virsh capabilities | grep -m1 '<uuid>')" \
		'8a7f0001-.* .*8a7f0002-' "the host UUIDs (QEMU's -uuid, SMBIOS)"
	# no libvirt network: the default one (NAT, dnsmasq) neither started
	# nor started at boot, as an operator turns it off
	on_src 'virsh net-autostart --disable default >/dev/null; virsh net-destroy default' 2>/dev/null || true
	virsh net-autostart --disable default >/dev/null 2>&1 || true
	check_eq "$(on_src virsh net-list --name | tr -d '\n')$(virsh net-list --name | tr -d '\n')" "" \
		"active libvirt networks"
	check_eq "$(ip -4 route | awk '{ print $1 }' | tr '\n' ' ')" "10.87.0.0/24 " "lv-dst's routes"
	check_eq "$(on_src ip -4 route | awk '{ print $1 }' | tr '\n' ' ')" "10.87.0.0/24 " "lv-src's routes"
	on_src test -c /dev/kvm
	test -c /dev/kvm
	# QEMU runs as libvirt-qemu: postcopy needs userfaultfd for it (libvirt's docs)
	echo vm.unprivileged_userfaultfd=1 >/etc/sysctl.d/60-postcopy.conf
	sysctl -p /etc/sysctl.d/60-postcopy.conf
	cat >"$xml" <<XML
<domain type='kvm'>
  <name>vm1</name>
  <memory unit='MiB'>$mib</memory>
  <vcpu>1</vcpu>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <loader type='rom'>/var/lib/libvirt/boot/migfw.bin</loader>
  </os>
  <devices>
    <serial type='pty'/>
    <console type='pty'/>
  </devices>
</domain>
XML
	on_src "cat >/root/vm1.xml && cd /root && virsh define vm1.xml" <"$xml"
	conf 'cgroup /machine.slice zero'
	systemctl enable --now thpcow.service
	thpcowctl status | head -n 5
}

# precopy with `cgroup /machine.slice zero` on lv-dst: QEMU, in its
# machine scope before the RAM arrives, reads the zero pages
# (ram_handle_zero); the guest's writes then get whole THPs, which KVM maps
# at 2 MiB; its row in thpcowctl usage counts them.
precopy_zero() {
	leftovers
	conf 'cgroup /machine.slice zero'
	precopy_in
	write_verify
	((substituted)) || grep -H '^\(NAME\|SCOPE\|SERVICE\)=' /run/systemd/machines/qemu-*
	virsh destroy vm1
	at_least "$substituted" $((written * 95 / 100)) "substitutions in vm1's usage row"
	per_2m_at_most 1.1
	at_least "$pages_2m" $(((ranges * 95 + 99) / 100)) "KVM's 2 MiB mappings (95 % of the ranges)"
}

# The control: the same with the rule absent; the kernel splits the huge
# zero page on each write, 512 faults per 2 MiB, KVM maps 4 KiB (but for
# what khugepaged has collapsed meanwhile: shown, not checked).
precopy_control() {
	leftovers
	conf
	check_eq "$(thpcowctl list | awk '$1 == "cgroup"')" "" "cgroup rules"
	precopy_in
	write_verify
	virsh destroy vm1
	check_eq "$substituted" 0 "substitutions in vm1's usage row"
	awk -v p="$per_2m" 'BEGIN { exit !(p >= 100) }' || { echo "faults per 2 MiB: $per_2m, not the kernel's split"; return 1; }
}

# postcopy, the hook on: vm1 writes its RAM on lv-src, then `virsh migrate
# --live --postcopy` (its precopy held to 1 MiB/s) is switched to postcopy
# at once (virsh migrate-postcopy); the hook starts thpcow-collapse@vm1 on
# "migrate begin", which waits for libvirt's event that the migration has
# completed (or, libvirtd too slow to answer, for the end of QEMU's
# userfaultfd), then collapses: seconds from completion to 95 % of the
# written ranges as THPs, the unit's journal line, then KVM's 2 MiB
# mappings.
postcopy() {
	local t0 bg i huge=0 t95='' want=$((written * 2048 * 95 / 100)) journal
	leftovers
	conf 'cgroup /machine.slice zero' 'collapse-hook on'
	check_eq "$(systemctl show -P ActiveState thpcow-collapse@vm1.service)" inactive "thpcow-collapse@vm1.service before"
	on_src virsh start vm1
	on_src "$here/libvirt.sh" serial vm1 W D
	t0=$EPOCHREALTIME
	on_src virsh migrate --live --postcopy vm1 qemu+ssh://lv-dst/system --bandwidth 1 &
	bg=$!
	# (one ssh: as soon as the migration has begun, within 2 minutes)
	# shellcheck disable=SC2016 # lv-src's shell expands it
	on_src 'for i in $(seq 240); do virsh migrate-postcopy vm1 >/dev/null 2>&1 && exit; sleep 0.5; done; exit 1' ||
		{ echo "virsh migrate-postcopy vm1 failed for 2 minutes"; wait "$bg"; return 1; }
	echo "switched to postcopy after $(since "$t0") s"
	wait "$bg" || { logs; return 1; }
	echo "virsh migrate --live --postcopy: $(since "$t0") s"
	t0=$EPOCHREALTIME
	pid=$(cat /run/libvirt/qemu/vm1.pid)
	for ((i = 0; i < 600; i++)); do
		huge=$(key anon_huge_kb "$(qemustat)")
		((huge < want)) || { t95=$(since "$t0"); break; }
		sleep 0.5
	done
	echo "THPs: ${huge} kB of $((written * 2048)) written; 95 % after ${t95:-(never)} s from completion"
	migrated
	unit_until thpcow-collapse@vm1.service ActiveState inactive 120
	journal=$(journalctl -u thpcow-collapse@vm1.service --no-pager -o cat)
	echo "$journal" | tail -n 3
	[[ -n $t95 ]] || { echo "the THPs did not come back"; return 1; }
	check_match "$journal" '"postcopy_seen": *true' "thpcow-collapse@vm1.service's journal line: a postcopy"
	# libvirt's event ends the wait, or its state; where libvirtd did not
	# answer virsh domstate within thpcowctl's 10 s (seen at a load of 12
	# under TCG, during the incoming migration), the documented fallback:
	# the process watched until its userfaultfd is gone
	if [[ $journal == *"virsh domstate: no answer; watching the process instead"* ]]; then
		check_match "$journal" '"trigger": *"userfaultfd"' "thpcow-collapse@vm1.service's journal line (libvirtd slow)"
	else
		check_match "$journal" '"trigger": *"(event|state)"' "thpcow-collapse@vm1.service's journal line: libvirt's word"
	fi
	write_verify
	virsh destroy vm1
	at_least "$pages_2m" $(((ranges * 95 + 99) / 100)) "KVM's 2 MiB mappings (95 % of the ranges)"
}

# The hook with thpcowctl missing and the module unloaded: the migration
# and a start succeed, the guest's data is intact, and the journal says
# why nothing was collapsed.
hook_failure() {
	local ctl journal i
	leftovers
	conf 'cgroup /machine.slice zero' 'collapse-hook on'
	systemctl stop thpcow.service
	thpcowctl unload
	ctl=$(command -v thpcowctl)
	mv "$ctl" "$ctl.away"
	hash -r # (bash would still run the path it remembered)
	# shellcheck disable=SC2064 # $ctl now
	trap "mv '$ctl.away' '$ctl'; systemctl start thpcow.service" EXIT
	precopy_in
	write_verify
	for ((i = 0; i < 120; i++)); do
		journal=$(journalctl -u thpcow-collapse@vm1.service --no-pager -o cat)
		[[ $journal != *thpcowctl* ]] || break
		sleep 0.5
	done
	grep -m1 thpcowctl <<<"$journal" || true
	check_match "$journal" 'thpcowctl.*(No such file|not found)' "thpcow-collapse@vm1.service's journal"
	virsh destroy vm1
	check_eq "$substituted" 0 "substitutions (no module)"
	# a guest started here, with the hook failing the same
	virsh create "$xml"
	check_eq "$(virsh domstate vm1)" running "vm1 started on lv-dst"
	virsh destroy vm1
}

# systemctl restart libvirtd with a guest running: libvirtd reconnects to
# its QEMU (the hook's "reconnect" call among it) and the guest runs on,
# its memory intact.
restart_libvirtd() {
	local before
	leftovers
	conf 'cgroup /machine.slice zero' 'collapse-hook on'
	virsh create "$xml"
	pid=$(cat /run/libvirt/qemu/vm1.pid)
	serial vm1 W D
	before=$(date '+%Y-%m-%d %H:%M:%S')
	systemctl restart libvirtd.service
	check_eq "$(virsh domstate vm1)" running "vm1 after the restart"
	check_eq "$(cat "/run/libvirt/qemu/vm1.pid")" "$pid" "its QEMU"
	serial vm1 V K
	check_eq "$(journalctl -u libvirtd --since "$before" --no-pager -o cat | grep -i hook)" "" \
		"libvirtd on hooks since the restart"
	virsh destroy vm1
}

trap leftovers EXIT
tap_run hosts precopy_zero precopy_control postcopy hook_failure restart_libvirtd
