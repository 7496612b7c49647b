#!/usr/bin/env bash
# tests/host/cli-layers.t: thpcowctl is layered, with no circle. A verb file
# (cmd_*.c) may include the shared libraries' headers and its own header,
# never another verb's; a shared library (any other file but main.c, the
# dispatcher) includes no verb header at all. A verb header is a cmd_*.h, or
# any header that declares a verb (a cmd_*() function or a verb entry). And
# in the objects: a verb file exports its table entries (*_verb) and
# nothing else, so no verb calls into another, and main.o exports only main.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"
dir=$repo/tools/thpcowctl

# is_verb_header FILE.h: FILE declares a verb, or is named as a verb's.
is_verb_header() {
	[[ $(basename "$1") == cmd_*.h ]] ||
		grep -qE '\<cmd_[a-z_]+ *\(|^extern const struct verb\>' "$1"
}

# local_includes FILE: the headers FILE includes with "", one a line.
local_includes() {
	sed -n 's/^#include "\([^"]*\)".*/\1/p' "$1"
}

# bad_includes ALLOWED FILE...: each include of a verb header other than
# ALLOWED (a header name, or '' for none), as "FILE: HEADER".
bad_includes() {
	local allowed=$1 f h
	shift
	for f; do
		while read -r h; do
			[[ -f $dir/$h && $h != "$allowed" ]] || continue
			is_verb_header "$dir/$h" && echo "${f##*/}: $h"
		done < <(local_includes "$f")
	done
	return 0
}

verbs_include_no_other_verb() {
	local f out
	out=$(for f in "$dir"/cmd_*.c; do
		bad_includes "$(basename "$f" .c).h" "$f"
	done)
	[[ -z $out ]] || {
		echo "verb files that include another verb's header:"
		echo "$out"
		return 1
	}
}

libraries_include_no_verb() {
	local f files=() out
	for f in "$dir"/*.[ch]; do
		case ${f##*/} in
		cmd_*.c | main.c) ;;
		*) files+=("$f") ;;
		esac
	done
	out=$(bad_includes '' "${files[@]}")
	[[ -z $out ]] || {
		echo "shared files that include a verb header:"
		echo "$out"
		return 1
	}
}

# exported OBJ: the symbols OBJ defines for others, one a line.
exported() { nm -g --defined-only "$1" | awk '{ print $3 }'; }

verbs_export_only_entries() {
	local o out
	command -v nm >/dev/null || skip "no nm (binutils)"
	make -s -C "$dir" thpcowctl || return 1
	out=$({
		for o in "$dir"/cmd_*.o; do
			exported "$o" | grep -v '_verb$' | sed "s|^|${o##*/}: |"
		done
		exported "$dir/main.o" | grep -vx main | sed 's|^|main.o: |'
	}) || true # grep -v finds none: what is wanted
	[[ -z $out ]] || {
		echo "symbols a verb file or main.c gives to other files:"
		echo "$out"
		return 1
	}
}

cases=(
	verbs_include_no_other_verb # a cmd_*.c includes no other verb's header
	libraries_include_no_verb   # no shared file includes a verb header
	verbs_export_only_entries   # cmd_*.o export only *_verb; main.o only main
)
tap_run "${cases[@]}"
