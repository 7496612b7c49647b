#!/usr/bin/env bash
# tests/host/kstyle.t: the kernel code is in kernel style. checkpatch.pl
# (from Debian's linux-source tarball, extracted once into the cache) finds
# no error or warning, and sparse (make C=2) and gcc find nothing to say.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"
cache=${XDG_CACHE_HOME:-$HOME/.cache}/thpcow

# The 6.1 headers the guest kernel needs, as make deps installs them.
headers_dir() {
	local h
	h=$(apt-cache show --no-all-versions linux-headers-amd64 2>/dev/null |
		sed -n 's/^Depends:.*linux-headers-\([^ ,]*-amd64\).*/\1/p')
	echo "/usr/src/linux-headers-$h"
}

# checkpatch.pl and the data files it reads, from the newest linux-source.
checkpatch() {
	local tarball dir
	tarball=$(find /usr/src -maxdepth 1 -name 'linux-source-*.tar.xz' | sort -V | tail -n 1)
	[[ -n $tarball ]] || return 1
	dir=$cache/checkpatch/$(basename "$tarball" .tar.xz)
	if [[ ! -x $dir/scripts/checkpatch.pl ]]; then
		mkdir -p "$dir"
		tar -xJf "$tarball" -C "$dir" --strip-components=1 --wildcards \
			'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
			'*/scripts/const_structs.checkpatch' || return 1
	fi
	echo "$dir/scripts/checkpatch.pl"
}

checkpatch_clean() {
	local cp f out files=() lists=() rc=0 rc2=0
	cp=$(checkpatch) || skip "no linux-source-*.tar.xz in /usr/src (make deps installs it)"
	cd "$repo" || return 1
	# The files that expand the symbol list compat/ksym-list.h into
	# declarations: each expansion is a declaration with its semicolon, which
	# checkpatch takes for a statement (as in the kernel's KVM_X86_OP users).
	for f in module/*.[ch] module/compat/*.[ch] include/uapi/*.h; do
		[[ $f != *.mod.c ]] || continue
		if grep -q '#include "\(compat/\)\?ksym-list\.h"' "$f"; then lists+=("$f"); else files+=("$f"); fi
	done
	# LINUX_VERSION_CODE: out-of-tree, module/compat/ must tell the series apart.
	# Its exit status too: 0 also says it ran to its end (a checkpatch.pl
	# that dies prints no finding).
	out=$("$cp" --no-tree --terse --show-types --ignore LINUX_VERSION_CODE -f "${files[@]}" 2>&1) || rc=$?
	out+=$'\n'$("$cp" --no-tree --terse --show-types \
		--ignore LINUX_VERSION_CODE,TRAILING_SEMICOLON,MULTISTATEMENT_MACRO_USE_DO_WHILE -f "${lists[@]}" 2>&1) || rc2=$?
	[[ $rc == 0 && $rc2 == 0 ]] || {
		grep -E ': (ERROR|WARNING):' <<<"$out" || tail -n 5 <<<"$out"
		echo "checkpatch.pl exited $rc and $rc2"
		return 1
	}
}

sparse_and_gcc_clean() {
	local hdr out
	hdr=$(headers_dir)
	[[ -d $hdr ]] || skip "no $hdr (make deps installs it)"
	command -v sparse >/dev/null || skip "no sparse (make deps installs it)"
	# Debian's headers have no vmlinux, so no BTF: that one line is expected.
	local rc=0
	out=$(make -s -C "$hdr" M="$repo/module" C=2 modules 2>&1) || rc=$?
	out=$(grep -v '^Skipping BTF generation' <<<"$out" || true)
	[[ $rc == 0 && -z $out ]] || {
		echo "$out"
		return 1
	}
}

cases=(
	checkpatch_clean     # no checkpatch.pl error or warning in the kernel code
	sparse_and_gcc_clean # sparse (C=2) and gcc -Werror have nothing to say
)
tap_run "${cases[@]}"
