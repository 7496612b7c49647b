# shellcheck shell=bash
# vm/lib/prebuilt.sh: the kernel series that are not fetched from Debian's
# archive but come as the two packages `make bindeb-pkg` writes
# (linux-image-RELEASE_*.deb, linux-headers-RELEASE_*.deb), for
# vm/fetch-kernel, vm/kbuild and vm/run. Needs $cache (.../thpcow) and die.
#
# One line a series: its name (vm/run --kernel NAME), where its packages
# come from, the TCG threads vm/run gives it by default (see --tcg-threads
# there), and the CPU features vm/run takes from TCG's -cpu max for it
# ("-": none).
# Where:
#   shared:FOLDER  $THPCOW_KERNELS/FOLDER (default ../shared/kernels,
#                  relative to the repository's top),
#                  checked against that folder's SHA256SUMS
#                  (a distribution's kernel: one more folder, one more line)
#   built          vm/build-kernel NAME: built here from Debian's source,
#                  on first use (an hour or more), then cached
# The debug kernels run without LA57: KASAN's shadow set up for 5-level
# paging, which -cpu max offers, triple-faults in kasan_init() under QEMU
# 7.2's TCG (a reset right after "Zone ranges"). A CPU feature rather than
# no5lvl on the command line: it holds whatever entry the kernel is booted
# through.
prebuilt_kernels=(
	"ubuntu-6.8  shared:ubuntu-noble-6.8.0-49   single -"      # Ubuntu 24.04, 6.8.0-49.49
	"ubuntu-5.15 shared:ubuntu-jammy-5.15.0-185 multi  -"      # Ubuntu 22.04, 5.15.0-185.195
	"6.1-debug   built                          multi  -la57"  # vm/build-kernel: Debian's 6.1 + debugging
	"6.12-debug  built                          single -la57"  # and Debian's 6.12
)
prebuilt_shared=${THPCOW_KERNELS:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/../shared/kernels}

# prebuilt_field SERIES N: field N (1 name, 2 where, 3 TCG threads, 4 CPU features off) of
# SERIES' line; fails when SERIES is not a prebuilt series.
prebuilt_field() {
	local line words
	for line in "${prebuilt_kernels[@]}"; do
		read -ra words <<<"$line"
		[[ ${words[0]} == "$1" ]] && echo "${words[$2 - 1]}" && return
	done
	return 1
}

# prebuilt_names: the prebuilt series, one a line.
prebuilt_names() {
	local line
	for line in "${prebuilt_kernels[@]}"; do echo "${line%% *}"; done
}

# prebuilt_source SERIES: sets prebuilt_dir, the directory holding SERIES'
# packages (built first when missing), and prebuilt_id, what identifies its
# contents (SHA256SUMS, vm/build-kernel's stamp): a cache made from an older
# one is made again.
# shellcheck disable=SC2034 # prebuilt_dir and prebuilt_id are for the caller
prebuilt_source() {
	local where
	where=$(prebuilt_field "$1" 2) || die "no prebuilt kernel '$1'"
	case $where in
	shared:*)
		prebuilt_dir=$prebuilt_shared/${where#shared:}
		[[ -s $prebuilt_dir/SHA256SUMS ]] ||
			die "$1: no $prebuilt_dir/SHA256SUMS (THPCOW_KERNELS names the folder of kernels)"
		prebuilt_id=$(sha256sum <"$prebuilt_dir/SHA256SUMS" | cut -c1-16)
		;;
	built)
		prebuilt_dir=$("$(dirname "${BASH_SOURCE[0]}")/../build-kernel" "$1") || die "$1: vm/build-kernel failed"
		prebuilt_id=$(sha256sum <"$prebuilt_dir/stamp" | cut -c1-16)
		;;
	esac
}

# prebuilt_copy SERIES DEST: copy SERIES' two packages from prebuilt_dir
# to DEST, checked against its SHA256SUMS where it has one, and print the
# kernel release their names carry.
prebuilt_copy() {
	local image headers
	image=$(compgen -G "$prebuilt_dir/linux-image-*.deb" | grep -v -- '-dbg_' | head -n1)
	headers=$(compgen -G "$prebuilt_dir/linux-headers-*.deb" | head -n1)
	[[ -n $image && -n $headers ]] || die "$1: no linux-image-*.deb and linux-headers-*.deb in $prebuilt_dir"
	mkdir -p "$2"
	cp "$image" "$headers" "$2/"
	if [[ -e $prebuilt_dir/SHA256SUMS ]]; then
		(cd "$2" && grep -E ' (linux-image|linux-headers)-' "$prebuilt_dir/SHA256SUMS" |
			sha256sum --quiet --strict -c >&2) || die "$1: the packages in $prebuilt_dir do not match its SHA256SUMS"
	fi
	image=${image##*/linux-image-}
	echo "${image%%_*}"
}
