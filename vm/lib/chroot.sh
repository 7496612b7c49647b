# shellcheck shell=bash
# vm/lib/chroot.sh: the Debian chroots of vm/kbuild (the module built with a
# release's compiler and headers) and vm/debbuild (the packages built with a
# release's libraries), one per release, shared by both, under
# ${XDG_CACHE_HOME:-$HOME/.cache}/thpcow/chroot/RELEASE. Their apt sources
# are their own (the host's mirror URIs, vm/lib/mirror.sh); the host's are
# never edited. Needs root and debootstrap; the caller's die and note.
#
#   chroot_open RELEASE [PACKAGE...]
#       set chroot_root to RELEASE's chroot, locked (flock) until the caller
#       exits (one user of a chroot at a time), made with debootstrap if
#       missing (a few minutes), with PACKAGEs installed if absent
#   in_chroot DIR COMMAND...
#       run COMMAND in the chroot DIR, in a private mount namespace with its
#       own /proc (nothing stays mounted when it ends), with a clean
#       environment
#   chroot_install DIR PACKAGE...
#       apt-get install in DIR, updating its lists once if a package is
#       unknown
#   chroot_suites DIR SUITE...
#       add the apt SUITEs DIR's sources lack (and update its lists)

# shellcheck source=SCRIPTDIR/mirror.sh
source "$(dirname "${BASH_SOURCE[0]}")/mirror.sh"

chroot_cache=${XDG_CACHE_HOME:-$HOME/.cache}/thpcow/chroot

in_chroot() {
	local dir=$1
	shift
	# shellcheck disable=SC2016 # for sh -c
	unshare -m --propagation private sh -c 'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' \
		"$dir" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive "$@"
}

chroot_install() {
	local dir=$1
	shift
	in_chroot "$dir" apt-get -q -y --no-install-recommends install "$@" >&2 && return
	in_chroot "$dir" apt-get -q update >&2 &&
		in_chroot "$dir" apt-get -q -y --no-install-recommends install "$@" >&2
}

chroot_suites() {
	local dir=$1 s added=0
	shift
	for s; do
		grep -q " $s " "$dir/etc/apt/sources.list" && continue
		echo "deb $(mirror_of "$s") $s main" >>"$dir/etc/apt/sources.list"
		added=1
	done
	((!added)) || in_chroot "$dir" apt-get -q update >&2
}

# chroot_create RELEASE DIR: a minimal RELEASE with make, debootstrapped into
# a temporary directory renamed to DIR when complete, its apt sources its
# release's suites.
chroot_create() {
	local tmp=$2.new s
	rm -rf "$tmp"
	note "creating the $1 chroot in $2 (debootstrap, a few minutes)"
	debootstrap --variant=minbase --include="make,ca-certificates" "$1" "$tmp" "$(mirror main)" >&2 ||
		die "debootstrap $1 failed (see $tmp/debootstrap/debootstrap.log)"
	for s in "$1" "$1-security"; do
		echo "deb $(mirror_of "$s") $s main"
	done >"$tmp/etc/apt/sources.list"
	in_chroot "$tmp" apt-get -q update >&2 || die "apt-get update in the $1 chroot failed"
	in_chroot "$tmp" apt-get -q -y clean
	mv "$tmp" "$2"
}

chroot_open() {
	local release=$1 p missing=()
	shift
	[[ $(id -u) == 0 ]] || die "the $release chroot needs root (debootstrap, chroot)"
	command -v debootstrap >/dev/null || die "no debootstrap (apt-get install debootstrap)"
	chroot_root=$chroot_cache/$release
	mkdir -p "$chroot_cache"
	exec 9>"$chroot_root.lock"
	flock 9
	[[ -x $chroot_root/usr/bin/make ]] || chroot_create "$release" "$chroot_root"
	for p; do
		[[ -e $chroot_root/var/lib/dpkg/info/$p.list || -e $chroot_root/var/lib/dpkg/info/$p:amd64.list ]] ||
			missing+=("$p")
	done
	((${#missing[@]} == 0)) || {
		note "installing ${missing[*]} in the $release chroot"
		chroot_install "$chroot_root" "${missing[@]}" || die "cannot install ${missing[*]} in the $release chroot"
		in_chroot "$chroot_root" apt-get -q -y clean
	}
}
