# shellcheck shell=bash
# tests/lib/localrepo.sh: a test root's only apt source, a local repository
# of packages downloaded into the thpcow cache (tests/lib/debroot.sh's roots,
# tests/vm/libvirt.t's). Needs vm/lib/vm.sh ($vm_cache).

: "${vm_cache:?source vm/lib/vm.sh first}"

# local_repo ROOT SUITE: the packages "NAME VERSION" on stdin (downloaded into
# the thpcow cache's apt/SUITE) as ROOT's only apt source, a local
# repository in /var/local/thpcow-repo; and, quicker here and in the guest
# and not what is tested, dpkg without fsync and no recommended packages.
local_repo() {
	local root=$1 suite=$2 name ver f
	mkdir -p "$root/var/local/thpcow-repo"
	while read -r name ver; do
		f=$(compgen -G "$vm_cache/apt/$suite/${name}_${ver/:/%3a}_*.deb" | head -n1)
		[[ -n $f ]] || { echo "$name $ver: not downloaded" >&2; return 1; }
		cp "$f" "$root/var/local/thpcow-repo/"
	done
	# (-m: every version, linux-base's two among them)
	(cd "$root/var/local/thpcow-repo" && dpkg-scanpackages -m . /dev/null >Packages 2>/dev/null) || return 1
	rm -f "$root"/etc/apt/sources.list.d/*
	echo "deb [trusted=yes] file:/var/local/thpcow-repo ./" >"$root/etc/apt/sources.list"
	echo force-unsafe-io >"$root/etc/dpkg/dpkg.cfg.d/thpcow-test"
	echo 'APT::Install-Recommends "false";' >"$root/etc/apt/apt.conf.d/99thpcow-test"
}
