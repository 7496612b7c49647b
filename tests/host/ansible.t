#!/usr/bin/env bash
# tests/host/ansible.t: the Ansible role (dist/ansible/roles/thpcow) and
# its example playbook (dist/ansible/site.yml) pass ansible-lint's
# production profile and ansible-playbook --syntax-check (Debian 12's
# ansible-lint and ansible-core, which make deps installs as lint tools
# only: nothing here runs the role, which tests/vm/ansible.t does in a
# guest).
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# ansible's own files (its temporary files, ansible-lint's cache) go here
export HOME=$scratch ANSIBLE_NOCOLOR=1 NO_COLOR=1

# lint DIR: ansible-lint over DIR's site.yml and roles/thpcow, offline, its
# findings one a line.
lint() {
	command -v ansible-lint >/dev/null || skip "no ansible-lint (make deps installs it)"
	(cd "$1" && ansible-lint --offline -q -p --profile production site.yml roles/thpcow 2>&1)
}

role_clean() {
	lint "$repo/dist/ansible"
}

syntax() {
	command -v ansible-playbook >/dev/null || skip "no ansible-playbook (make deps installs ansible-lint, and it)"
	(cd "$repo/dist/ansible" && ansible-playbook --syntax-check -i localhost, site.yml)
}

# The lint fails on a finding: in a copy of the role, a task that runs
# systemctl by hand (command-instead-of-module) and has no name.
finding_fails() {
	local out rc=0
	cp -r "$repo/dist/ansible" "$scratch/copy"
	printf '\n- ansible.builtin.command: systemctl reload thpcow\n' >>"$scratch/copy/roles/thpcow/tasks/main.yml"
	out=$(lint "$scratch/copy") || rc=$?
	echo "$out"
	check_eq "$rc" 2 "ansible-lint's exit status on a finding"
	check_match "$out" 'roles/thpcow/tasks/main\.yml:[0-9]+: name\[missing\]' "ansible-lint's finding"
}

cases=(
	role_clean    # ansible-lint's production profile finds nothing
	syntax        # ansible-playbook --syntax-check site.yml
	finding_fails # the lint fails on a finding (a task without a name)
)
tap_run "${cases[@]}"
