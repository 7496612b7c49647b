# shellcheck shell=bash
# tests/lib/localrepo.sh: a test root's only apt source, a local repository
# of packages downloaded into the thpcow cache, and the root prepared once
# with them (tests/lib/debroot.sh's roots, tests/vm/libvirt.t's). Needs
# vm/lib/vm.sh ($vm_cache, $vm_scratch).

: "${vm_cache:?source vm/lib/vm.sh first}" "${vm_scratch:?source vm/lib/vm.sh first}"

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

# in_root ROOT COMMAND: COMMAND (sh -c) under chroot in ROOT, with /proc,
# none of this host's environment, no service started and no initramfs made
# (a kernel's package that headers pull in; the guest boots its own); its
# output in $vm_scratch/chroot.log, shown on failure.
in_root() {
	printf '#!/bin/sh\nexit 101\n' >"$1/usr/sbin/policy-rc.d"
	chmod +x "$1/usr/sbin/policy-rc.d"
	# shellcheck disable=SC2016 # for the sh below
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 INITRD=No DEBIAN_FRONTEND=noninteractive \
		unshare -m sh -c 'mount -t proc proc "$1/proc" && chroot "$1" sh -c "$2"' sh "$1" "$2" \
		>>"$vm_scratch/chroot.log" 2>&1 || {
		tail -n 30 "$vm_scratch/chroot.log" >&2
		return 1
	}
	rm -f "$1/usr/sbin/policy-rc.d"
}

# cached_root ROOT KEY BASE WHAT CMD...: ROOT, a copy of the root filesystem
# BASE that CMD... COPY prepared (WHAT says what, once), made again only when
# KEY changes; one test at a time prepares it (ROOT.lock, fd 7, held until
# the caller's end). apt's lists and downloads are left out of it. Prints
# ROOT.
cached_root() {
	local root=$1 key=$2 base=$3 what=$4 tmp=$1.new
	shift 4
	exec 7>"$root.lock"
	flock 7
	[[ $(cat "$root/.thpcow-prepared" 2>/dev/null) != "$key" ]] || { echo "$root" && return 0; }
	echo "# preparing $root (once: $what)" >&2
	rm -rf "$tmp"
	cp -a "$base" "$tmp" && "$@" "$tmp" || return 1
	rm -rf "$tmp"/var/lib/apt/lists/* "$tmp"/var/cache/apt/*.bin "$tmp"/var/cache/apt/archives/*.deb
	echo "$key" >"$tmp/.thpcow-prepared"
	rm -rf "$root"
	mv "$tmp" "$root"
	echo "$root"
}
