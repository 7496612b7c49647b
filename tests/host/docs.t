#!/usr/bin/env bash
# tests/host/docs.t: README.md and docs/*.md say only what is checked. Every
# command they show is one a test runs: the commands are the lines of their
# fenced ```sh blocks (a line ending in \ goes on on the next; # lines are
# comments), and each must appear, spelled the same, in a line of a test,
# the harness, the benchmark or CI (tests/, vm/, bench/, .ci/, but for
# comments and documents; a test's "$ctl" reads as thpcowctl), or be listed
# in ran_by below with the file that runs it and how that file spells it.
# Commands only a host operator can run (Proxmox, a MOK enrolment) go in
# ```sh untested blocks, after a paragraph that says why, and are few. Also:
# the README is at most 250 lines and starts with make demo and make check,
# and every relative link in these documents names a file that exists.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"
cd "$repo" || exit 1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

docs=(README.md docs/*.md)
max_readme_lines=250
max_untested=8

# COMMAND, the file that runs it, and the text in that file that runs it
# (whitespace squeezed, "$ctl" as thpcowctl): for the commands a test
# spells otherwise, one a line, tab-separated.
ran_by=$(
	cat <<'EOF'
make demo	tests/vm/demo.t	"$repo/bench/demo"
make uninstall	tests/host/install.t	install_into "$tmp/u" uninstall
apt-get purge thpcow-dkms thpcowctl	tests/guest/packages.sh	apt-get -q -y purge thpcow-dkms thpcowctl
make deb	tests/host/deb.t	make -s deb
make deb SUITE=bullseye	tests/host/deb.t	make -s deb SUITE=$s
make rpm	tests/host/rpm.t	make -s rpm
apt-get install linux-headers-$(uname -r) linux-headers-amd64 ./thpcow-dkms_*.deb ./thpcowctl_*.deb	tests/guest/packages.sh	apt-get -q -y install "linux-headers-$release" ${meta:+"$meta"} ./thpcow-dkms_*.deb ./thpcowctl_*.deb
thpcowctl probe	tests/guest/packages.sh	"$(thpcowctl probe)"
thpcowctl load --path module/thpcow.ko	tests/guest/cli.sh	thpcowctl load --path "$ko"
thpcowctl exec zero -- qemu-system-x86_64 ... -incoming unix:/run/mig.sock	vm/mig.py	[ctl, 'exec', 'zero', '--']
thpcowctl set --cgroup machine.slice zero	tests/guest/cli.sh	thpcowctl set --cgroup thpcow-test/listed zero
thpcowctl set --pid 4242 --children zero	tests/guest/cli.sh	thpcowctl set --pid "$p" --children zero
thpcowctl list	tests/guest/cli.sh	thpcowctl list
thpcowctl usage	tests/guest/usage.sh	thpcowctl usage
thpcowctl usage --machine vm1 -o MACHINE,SUBSTITUTED,THP_PCT	tests/guest/usage.sh	--machine
thpcowctl get --pid 4242	tests/guest/cli.sh	thpcowctl get --pid
thpcowctl collapse --pid 4242	tests/guest/collapse.sh	collapse --pid "$pid"
thpcowctl collapse --cgroup machine.slice --rate 512	tests/guest/collapse.sh	--rate
thpcowctl collapse --pid 4242 --after-migration	tests/guest/collapse.sh	--after-migration
thpcowctl collapse --pidfile /run/libvirt/qemu/vm1.pid --await-postcopy 600	tests/guest/collapse.sh	--await-postcopy
thpcowctl collapse --pid 4242 --min-present 300 --json	tests/guest/collapse.sh	--min-present
thpcowctl check -w 20 -c 50	tools/thpcowctl/tests/test_args.c	"check", "-w"
tests/check host/	tests/host/check.t	"$t/tests/check" ${j:-} ${filter:+"$filter"}
vm/run --no-module -- uname -r	vm/tests/run.t	vm_run --no-module -- uname -r
ansible-playbook -i hosts site.yml	tests/guest/ansible.sh	ansible-playbook -c local -i localhost, site.yml
ansible all -i hosts -m command -a 'thpcowctl check'	tests/guest/ansible.sh	ansible all -c local -i localhost, -m command -a 'thpcowctl check'
EOF
)

# norm: squeeze blanks, drop leading and trailing ones; the tests' ways of
# naming thpcowctl ("$ctl", test_cli.c's \"$1/thpcowctl\") read as thpcowctl.
norm() {
	# shellcheck disable=SC2016 # sed's own $
	sed -E 's/\\?"\$\{?ctl\}?\\?"/thpcowctl/g; s/\$\{?ctl\}?([^a-zA-Z_]|$)/thpcowctl\1/g
		s/\\?"\$1\/thpcowctl\\?"/thpcowctl/g; s/[[:space:]]+/ /g; s/^ //; s/ $//'
}

# blocks KIND FILE...: the commands of each FILE's ```KIND blocks, as
# FILE<TAB>COMMAND lines (continuations joined, comment lines left out).
blocks() {
	local kind=$1
	shift
	awk -v kind="$kind" '
		FNR == 1 { on = 0; cont = "" }
		/^```/ { if (on) { on = 0; next } if ($0 == "```" kind) { on = 1; next } }
		!on { next }
		/^[[:space:]]*(#|$)/ && cont == "" { next }
		/\\$/ { cont = cont substr($0, 1, length($0) - 1) " "; next }
		{ print FILENAME "\t" cont $0; cont = "" }' "$@" |
		while IFS=$'\t' read -r f c; do printf '%s\t%s\n' "$f" "$(norm <<<"$c")"; done
}

# corpus: every text line of what runs (tests, harness, benchmark, CI) but
# comments (whole lines, and " # ..." at the end of one), this file and
# documents, as FILE<TAB>LINE, normalised.
corpus() {
	[[ -s $scratch/corpus ]] && return
	git ls-files tests vm bench .ci | grep -vE '\.(md|png|json)$|^tests/host/docs\.t$|^bench/results/' |
		while IFS= read -r f; do
			grep -Iv '^[[:space:]]*#' "$f" 2>/dev/null | sed -E 's/[[:space:]]+#[[:space:]].*//' | norm |
				sed "s|^|$f\t|"
		done >"$scratch/corpus"
}

readme_starts_with_demo_and_check() {
	local first
	first=$(blocks sh README.md | cut -f2 | head -n 2 | paste -sd ';')
	check_eq "$first" "make demo;make check" "the README's first two commands"
}

readme_short() {
	local n
	n=$(wc -l <README.md)
	((n <= max_readme_lines)) || check_eq "$n lines" "at most $max_readme_lines" "README.md"
}

# Every relative link, [text](path) or [text](path#anchor), names a file.
links_resolve() {
	local f link path bad=()
	for f in "${docs[@]}"; do
		while IFS= read -r link; do
			path=${link%%#*}
			[[ -z $path || $path =~ ^[a-z]+: ]] && continue
			[[ -e $(dirname "$f")/$path ]] || bad+=("$f: $link")
		done < <(grep -oE '\]\([^)]*\)' "$f" | sed -E 's/^\]\((.*)\)$/\1/')
	done
	check_eq "$(printf '%s\n' ${bad[@]+"${bad[@]}"})" "" "links to no file"
}

# Each command appears in what runs, or ran_by names the file that runs it.
commands_run_by_tests() {
	local f c file text hit missing=()
	corpus
	blocks sh "${docs[@]}" >"$scratch/commands"
	[[ -s $scratch/commands ]] || check_eq "" "commands" "the documents' sh blocks"
	while IFS=$'\t' read -r f c; do
		hit=$(grep -F -m1 -- "$c" "$scratch/corpus" | cut -f1) || true
		if [[ -z $hit ]]; then
			IFS=$'\t' read -r file text < <(awk -F'\t' -v c="$c" '$1 == c { print $2 "\t" $3; exit }' <<<"$ran_by") || true
			if [[ -n ${file:-} ]] && grep -qF -- "$(norm <<<"$text")" < <(grep -Iv '^[[:space:]]*#' "$file" | norm); then
				hit="$file (ran_by)"
			fi
		fi
		if [[ -n $hit ]]; then
			echo "$c: $hit"
		else
			missing+=("$f: $c")
		fi
		file='' text=''
	done <"$scratch/commands"
	check_eq "$(printf '%s\n' ${missing[@]+"${missing[@]}"})" "" "commands no test runs"
}

# ran_by lists no command the documents no longer show.
ran_by_current() {
	local stale
	blocks sh "${docs[@]}" | cut -f2 | sort -u >"$scratch/shown"
	stale=$(cut -f1 <<<"$ran_by" | sort -u | comm -23 - "$scratch/shown")
	check_eq "$stale" "" "ran_by's commands that no document shows"
}

# Untested commands are few, each block after a paragraph that says why.
untested_few_and_said() {
	local n
	n=$(blocks "sh untested" "${docs[@]}" | wc -l)
	((n <= max_untested)) || check_eq "$n" "at most $max_untested" "untested commands"
	awk '/^```sh untested$/ && (last " " cur) !~ /untested/ { print FILENAME ":" FNR ": no paragraph saying why"; bad = 1 }
		FNR == 1 { last = ""; cur = "" }
		/^$/ { if (cur != "") last = cur; cur = ""; next }
		{ cur = cur " " $0 }
		END { exit bad }' "${docs[@]}"
}

cases=(
	readme_starts_with_demo_and_check # README's first commands: make demo, make check
	readme_short                      # README.md: at most 250 lines
	links_resolve                     # every relative link names an existing file
	commands_run_by_tests             # every command shown is one a test runs
	ran_by_current                    # the table of commands names only shown ones
	untested_few_and_said             # few untested commands, each block explained
)
tap_run "${cases[@]}"
