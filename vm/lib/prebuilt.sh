# shellcheck shell=bash
# vm/lib/prebuilt.sh: the kernel series that are not fetched from Debian's
# archive but come as the two packages `make bindeb-pkg` writes
# (linux-image-RELEASE_*.deb, linux-headers-RELEASE_*.deb): those whose
# source in vm/series is shared:FOLDER or built:SERIES. For vm/fetch-kernel
# and vm/kbuild. Needs $cache (.../thpcow) and die.

# shellcheck source=SCRIPTDIR/series.sh
source "$(dirname "${BASH_SOURCE[0]}")/series.sh"
# $THPCOW_KERNELS, or ../shared/kernels beside the repository's top
prebuilt_shared=${THPCOW_KERNELS:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/../shared/kernels}

# prebuilt SERIES: whether SERIES is a prebuilt one.
prebuilt() { [[ $(series_get "$1" source) == @(shared|built):* ]]; }

# prebuilt_source SERIES: sets prebuilt_dir, the directory holding SERIES'
# packages (built first when missing), and prebuilt_id, what identifies its
# contents (SHA256SUMS, vm/build-kernel's stamp): a cache made from an older
# one is made again.
# shellcheck disable=SC2034 # prebuilt_dir and prebuilt_id are for the caller
prebuilt_source() {
	local where
	prebuilt "$1" || die "no prebuilt kernel '$1'"
	where=$(series_get "$1" source)
	case $where in
	shared:*)
		prebuilt_dir=$prebuilt_shared/${where#shared:}
		[[ -s $prebuilt_dir/SHA256SUMS ]] ||
			die "$1: no $prebuilt_dir/SHA256SUMS (THPCOW_KERNELS names the folder of kernels)"
		prebuilt_id=$(sha256sum <"$prebuilt_dir/SHA256SUMS" | cut -c1-16)
		;;
	built:*)
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
