#!/usr/bin/env bash
# tests/host/pyflakes.t: every Python file in the tree (*.py, and scripts
# whose #! line names python) is pyflakes-clean: no unused import, undefined
# name or redefinition (pyflakes3 comes with make deps; Debian 12 packages no
# ruff).
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# python_files [DIR]: the Python files of DIR's git tree (default the
# repository's), committed or not (ignored files aside), one per line.
python_files() {
	local f
	git -C "${1:-$repo}" ls-files --cached --others --exclude-standard | sort -u |
		while IFS= read -r f; do
			[[ -f ${1:-$repo}/$f ]] || continue
			if [[ $f == *.py ]] || head -n 1 "${1:-$repo}/$f" | grep -qE '^#!.*\bpython'; then
				echo "$f"
			fi
		done
}

# flakes DIR FILE...: pyflakes3 over the files, in DIR; its findings printed.
flakes() {
	local dir=$1
	shift
	command -v pyflakes3 >/dev/null || skip "no pyflakes3 (make deps installs it)"
	(cd "$dir" && pyflakes3 "$@")
}

tree_clean() {
	local files
	mapfile -t files < <(python_files)
	((${#files[@]})) || check_eq 0 "some" "Python files found"
	flakes "$repo" "${files[@]}"
}

# The lint fails on a finding: an unused import in a file of its own.
finding_fails() {
	printf 'import os\nimport sys\n\nprint(sys.argv)\n' >"$scratch/unused.py"
	local out rc=0
	out=$(flakes "$scratch" unused.py) || rc=$?
	check_eq "$rc" 1 "pyflakes3's exit status on an unused import"
	check_match "$out" "unused.py:1:.*'os' imported but unused" "pyflakes3's finding"
}

# python_files finds *.py and scripts with a python #! line, nothing else.
files_found() {
	local d=$scratch/tree
	mkdir -p "$d/sub"
	git -C "$d" init -q
	printf 'x = 1\n' >"$d/sub/mod.py"
	printf '#!/usr/bin/env python3\nprint(1)\n' >"$d/tool"
	printf '#!/bin/sh\necho 1\n' >"$d/script"
	printf 'not python\n' >"$d/README"
	check_eq "$(python_files "$d" | tr '\n' ' ')" "sub/mod.py tool " "the Python files of a tree"
	check_match "$(python_files)" $'(^|\n)bench/report.py\n' "bench/report.py among the repository's"
}

cases=(
	tree_clean    # pyflakes3 finds nothing in any Python file of the tree
	finding_fails # the lint fails on a finding (an unused import)
	files_found   # the files are found by name and by #! line
)
tap_run "${cases[@]}"
