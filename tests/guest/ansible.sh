#!/usr/bin/env bash
# tests/guest/ansible.sh install: inside the guest of tests/vm/ansible.t,
# which boots a Debian root of its own with systemd as init, offline, with
# Debian's ansible (and python3-apt, which its apt module needs) installed,
# the packages of `make deb` in /var/local/thpcow-debs and a local apt
# repository of what they need as the root's only apt source. The role
# (dist/ansible) run as an operator would run it on each host, here with
# ansible-playbook -c local against this guest:
#   first_run       installs thpcow (DKMS builds the module), writes the
#                   drop-in, enables thpcow.service and the metrics timer,
#                   turns the libvirt hook on: changed > 0, the rule applied
#                   from the drop-in, thpcowctl check OK
#   second_run      the same variables: changed=0
#   changed_rule    one variable changed (the rule's mode): the drop-in and
#                   the reload handler, nothing else
#   bad_mode        an invalid mode: the play fails naming it, before any
#                   change
#   missing_cgroup  a rule for a cgroup that does not exist: thpcowctl
#                   apply --check refuses the drop-in (the template's
#                   validate), nothing changes
#   fleet_check     thpcowctl check through ansible, as on a fleet
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$top/tests/lib/tap.sh"
# shellcheck source=SCRIPTDIR/../lib/inguest.sh
source "$top/tests/lib/inguest.sh" # cgroup_rules, hook_starts_collapse, monitoring

out=/var/lib/thpcow-test
version=$(cat "$out/version")
dropin=/etc/thpcow.conf.d/ansible.conf
# (a unit's environment: no HOME, no terminal)
export HOME=/root ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0

# vars NAME MODE [CGROUP]: the play's variables in $out/NAME.yml: the two
# .debs, one rule (CGROUP, default /machine.slice, in MODE), the libvirt
# hook and the metrics timer on.
vars() {
	cat >"$out/$1.yml" <<VARS
thpcow_debs:
  - /var/local/thpcow-debs/thpcow-dkms_${version}_all.deb
  - /var/local/thpcow-debs/thpcowctl_${version}_amd64.deb
thpcow_rules:
  - cgroup: ${3:-/machine.slice}
    mode: $2
thpcow_collapse_hook: true
thpcow_metrics_timer: true
VARS
}

# play NAME: the role (site.yml) with $out/NAME.yml's variables, against
# this guest; its output in $out/play-NAME.log, its status in rc.
play() {
	local t0=$SECONDS
	rc=0
	(cd "$top/dist/ansible" && ansible-playbook -c local -i localhost, site.yml -e "@$out/$1.yml") \
		>"$out/play-$1.log" 2>&1 || rc=$?
	echo "ansible-playbook ($1): exit $rc after $((SECONDS - t0)) s"
}
# recap KEY: KEY's count in the log's PLAY RECAP line (play's last)
recap() { sed -n "s/^localhost *:.* $1=\([0-9]*\).*/\1/p" "$log"; }
# changed_tasks: the tasks and handlers that reported a change, one a line
changed_tasks() {
	awk '/^(TASK|RUNNING HANDLER) \[/ { t = $0; sub(/ \**$/, "", t) }
		/^changed: / && t != "" { print t; t = "" }' "$log"
}
show() { grep -E '^(TASK|RUNNING HANDLER|PLAY RECAP|changed|fatal|failed)|^localhost|msg' "$log" | tail -n "${1:-60}"; }
fingerprint() { sha256sum "$dropin" | cut -d' ' -f1; }

first_run() {
	vars first zero
	play first
	log=$out/play-first.log
	show
	check_eq "$rc/$(recap failed)" 0/0 "ansible-playbook's status and failed tasks"
	check_match "$(recap changed)" '^[1-9]' "the first run's changed tasks"
	check_match "$(dkms status thpcow)" "^thpcow/${version//./\\.}, $(uname -r), x86_64: installed" "dkms status thpcow"
	check_eq "$(cat "$dropin")" $'# Ansible managed: the thpcow role\'s rules (thpcow.conf(5))\ncgroup /machine.slice zero\ncollapse-hook on' \
		"the drop-in"
	check_eq "$(systemctl is-enabled thpcow.service)/$(systemctl show -P ActiveState thpcow.service)" enabled/active \
		"thpcow.service"
	check_eq "$(cgroup_rules)" "/machine.slice zero" "the cgroup rules"
	check_match "$(journalctl -u thpcow.service --no-pager -o cat)" \
		"$dropin:2: cgroup /machine\\.slice zero"$'\n'"applied /etc/thpcow\\.conf" "the journal: the rule from the drop-in"
	check_eq "$(systemctl is-enabled thpcow-metrics.timer)/$(systemctl show -P ActiveState thpcow-metrics.timer)" \
		enabled/active "thpcow-metrics.timer"
	hook_starts_collapse vm1
}

second_run() {
	play first
	log=$out/play-first.log
	show 20
	check_eq "$rc/$(recap failed)/$(recap changed)" 0/0/0 "the second run: status, failed, changed"
	check_eq "$(changed_tasks)" "" "the tasks that changed"
}

# (the rule's new mode shows that the handler applied the drop-in again)
changed_rule() {
	vars copy copy
	play copy
	log=$out/play-copy.log
	show 30
	check_eq "$rc/$(recap failed)/$(recap changed)" 0/0/2 "status, failed, changed"
	check_eq "$(changed_tasks)" $'TASK [thpcow : Write the drop-in]\nRUNNING HANDLER [thpcow : Reload thpcow]' \
		"the tasks that changed"
	check_eq "$(cgroup_rules)" "/machine.slice copy" "the cgroup rules after the reload"
}

# refused NAME WHAT: play NAME failed, changing nothing: the drop-in and the
# rules as changed_rule left them.
refused() {
	log=$out/play-$1.log
	show 20
	check_match "$rc" '^[1-9]' "ansible-playbook's exit status ($2)"
	check_eq "$(recap failed)/$(recap changed)" 1/0 "failed, changed ($2)"
	check_eq "$(fingerprint)" "$copy_sum" "the drop-in ($2)"
	check_eq "$(cgroup_rules)" "/machine.slice copy" "the cgroup rules ($2)"
}

bad_mode() {
	copy_sum=$(fingerprint)
	vars bad fast
	play bad
	refused bad "an invalid mode"
	check_match "$(cat "$log")" "thpcow_rules\\[0\\]: .*'mode': 'fast'.*expected a cgroup \\(a path without blanks\\) and a mode, one of kernel, zero, copy, split" \
		"the play's message"
}

missing_cgroup() {
	copy_sum=$(fingerprint)
	vars missing zero /no-such.slice
	play missing
	refused missing "a cgroup that does not exist"
	check_match "$(cat "$log")" 'TASK \[thpcow : Write the drop-in\].*'$'\n''fatal: .*failed to validate' "the task that failed"
	check_match "$(cat "$log")" 'thpcow\.conf\.d/ansible\.conf:2: /sys/fs/cgroup/no-such\.slice: No such file or directory' \
		"thpcowctl apply --check's line"
}

# thpcowctl check on each host of the inventory (here, this one): the
# second command of README.md's Ansible section
fleet_check() {
	local fleet rc=0
	fleet=$(cd "$top/dist/ansible" && ansible all -c local -i localhost, -m command -a 'thpcowctl check' 2>&1) || rc=$?
	echo "$fleet"
	check_eq "$rc" 0 "ansible's exit status"
	check_match "$fleet" $'localhost \\| CHANGED \\| rc=0 >>\nTHPCOW OK - ' "thpcowctl check through ansible"
}

case ${1:-} in
install) tap_run first_run monitoring second_run changed_rule bad_mode missing_cgroup fleet_check ;;
*) echo "usage: ansible.sh install" >&2; exit 2 ;;
esac
