# shellcheck shell=bash
# tests/lib/debroot.sh: for tests/vm/packages.t and tests/vm/ansible.t, a
# guest that boots Debian with systemd from a root disk of its own, offline,
# with the packages of `make deb` to install: the root's only apt source
# is a local repository of what the packages need that vm/rootfs lacks
# (dkms, a compiler, the kernel's headers; openssl and mokutil), resolved by
# the host's apt against the root's dpkg status and downloaded once (the
# thpcow cache's apt/SUITE); all of it installed once, on the host (chroot,
# no initramfs), into a cached copy of the root, rootfs/SUITE-NAME, made
# anew when the package list, the kernel release or the recipe change. The
# guest then installs only the two .debs (packages.t's header says more).
# It sources vm/lib/vm.sh, vm/lib/sysguest.sh, tests/lib/inguest.sh and
# tests/lib/tap.sh and goes to the repository's top; then the test sets:
#   debroot_name    NAME of the cached root (a test's own: the lists differ)
#   debroot_recipe  bumped when what prepare_root puts in it changes
#   debroot_extra   more packages installed in the root (manually, as an
#                   operator would have), e.g. ansible
#   debroot_guest   the guest script each boot runs (with its STAGE)
#   debroot_files   more files of the repository the guest needs (beside
#                   inguest_files)
#   debroot_next    1: also the next version's packages (an upgrade), in
#                   the guest's /var/local/thpcow-debs/next
#   debroot_timeout seconds a boot may take (1200)
# Then `install SUITE` (suite, packages, kernels, apt_lists_of, image, and
# the first boot, stage install) and `boot SUITE STAGE` for later boots.
# debroot_bail MESSAGE ends the test file ("Bail out!").
debroot_lib=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/../../vm/lib/vm.sh
source "$debroot_lib/../../vm/lib/vm.sh" # repo, vm_scratch, vm_cache
# shellcheck source=SCRIPTDIR/../../vm/lib/sysguest.sh
source "$debroot_lib/../../vm/lib/sysguest.sh"
# shellcheck source=SCRIPTDIR/inguest.sh
source "$debroot_lib/inguest.sh" # inguest_files
# shellcheck source=SCRIPTDIR/tap.sh
source "$debroot_lib/tap.sh"
# shellcheck source=SCRIPTDIR/localrepo.sh
source "$debroot_lib/localrepo.sh" # local_repo, cached_root, in_root
cd "$repo" || exit 1
debroot_name=packages debroot_recipe=1 debroot_extra=() debroot_guest='' debroot_files=() debroot_next=''
debroot_timeout=1200

debroot_bail() {
	echo "TAP version 13"
	echo "Bail out! $*"
	exit 1
}

version=$(sed -n 's/^#define THPCOW_VERSION[[:space:]]*"\(.*\)"$/\1/p' include/uapi/thpcow.h)
# what inguest_files copies into the guest (make check builds them: make tools)
make -s -C prog wrf >&2 || debroot_bail "building prog/wrf failed"
make -s -C tests/prog thpmix >&2 || debroot_bail "building tests/prog/thpmix failed"
# the upgrade's version: the next patch level, built from this tree
next_version=$(awk -F. -v OFS=. '{ $NF = $NF + 1; print }' <<<"$version")
host_release=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")

# packages: debs (the two packages) and, with debroot_next=1, next_debs
# (the same as next_version) of the root's release, built once a run into
# $vm_scratch: on the host for its own release, else in the release's
# chroot.
packages() {
	local d=$vm_scratch/deb-$rootfs v as suite=()
	[[ $rootfs == "$host_release" ]] || suite=(SUITE="$rootfs")
	for v in "$version" ${debroot_next:+"$next_version"}; do
		as=()
		[[ $v == "$version" ]] || as=(DEB_VERSION="$v")
		[[ -f $d-$v/thpcowctl_${v}_amd64.deb ]] ||
			make -s deb ${suite[@]+"${suite[@]}"} DEB_DIR="$d-$v" ${as[@]+"${as[@]}"} >"$d-$v.log" 2>&1 || {
			tail -n 20 "$d-$v.log"
			echo "make deb ${suite[*]} ${as[*]} failed"
			return 1
		}
	done
	debs=("$d-$version/thpcow-dkms_${version}_all.deb" "$d-$version/thpcowctl_${version}_amd64.deb")
	next_debs=()
	[[ -z $debroot_next ]] ||
		next_debs=("$d-$next_version/thpcow-dkms_${next_version}_all.deb" "$d-$next_version/thpcowctl_${next_version}_amd64.deb")
	echo "# $rootfs's thpcowctl: Depends: $(dpkg-deb -f "${debs[1]}" Depends)"
}

# suite SUITE: the suite's kernel series, TCG threads and the series of
# its kernel update (none for bookworm, noble), root (vm/rootfs), the
# headers package (a name, or a .deb of a prebuilt series, and the
# libraries its tools link), the headers meta package and the kernel
# command line.
suite() {
	rootfs=$1 headers_deb='' headers_libs=() meta=linux-headers-amd64 append=''
	case $1 in
	bookworm) series=6.1 threads=multi next='' next_also='' ;;
	noble)
		series=ubuntu-6.8 threads=single next='' next_also='' rootfs=bookworm meta='' append=transparent_hugepage=always
		headers_deb=$(compgen -G "$(vm/fetch-kernel "$series")/debs/linux-headers-*.deb" | head -n1)
		# its tools/objtool/objtool links libelf.so.1, scripts/sign-file
		# libcrypto.so.3; Canonical's package depends on their packages,
		# make bindeb-pkg's on none (without libelf DKMS's build fails:
		# objtool cannot start)
		headers_libs=(libelf1 libssl3) ;;
	# as vm/run: QEMU 7.2's multi-threaded TCG and 6.12 do not mix
	# (linux-base: 7.x's kernel needs trixie-backports' newer one)
	trixie) series=6.12 threads=single next=latest next_also=linux-base/trixie-backports ;;
	bullseye) series=5.10 threads=multi next='' next_also='' ;;
	esac
}

# apt_lists_of: apt_lists, the host's for a root of the host's release
# (bookworm, noble's); for another, those of vm/fetch-kernel SERIES (and
# NEXT, with a kernel update) in one directory (after kernels, which
# fetches them: a cold cache has none before).
apt_lists_of() {
	local d=$vm_scratch/apt-$series s
	apt_lists=()
	[[ $rootfs != "$host_release" ]] || return 0
	mkdir -p "$d/lists"
	: >"$d/sources.list"
	for s in "$series" ${next:+"$next"}; do
		cat "$vm_cache/$s/apt/sources.list" >>"$d/sources.list" || return 1
		cp -lf "$vm_cache/$s/apt/lists/"*_Packages* "$vm_cache/$s/apt/lists/"*Release* "$d/lists/" 2>/dev/null
	done
	apt_lists=(-o "Dir::Etc::SourceList=$d/sources.list"
		-o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$d/lists")
}

# needed SUITE BASE: into $vm_scratch/needed-SUITE, the packages (name
# version) that installing the headers (the kernel's and the meta
# package), the two .debs, openssl, mokutil and debroot_extra in BASE takes, downloaded into the cache's apt/SUITE if not there yet;
# with a kernel update, into $vm_scratch/later-SUITE what its kernel and
# headers take on top of those (in the root's repository, not installed).
needed() {
	local archives=$vm_cache/apt/$1 log=$vm_scratch/download-$1.log
	mkdir -p "$archives/partial" "$archives/cache"
	: >"$vm_scratch/later-$1"
	apt_base() {
		apt-get -q -y -o APT::Sandbox::User=root "${apt_lists[@]}" -o Dir::Cache="$archives/cache" \
			-o Dir::Cache::archives="$archives" -o Dir::State::status="$2/var/lib/dpkg/status" \
			-o Debug::NoLocking=1 -o APT::Install-Recommends=false "${@:3}" install \
			"${headers_deb:-linux-headers-$release}" ${meta:+"$meta"} ${headers_libs[@]+"${headers_libs[@]}"} openssl mokutil \
			${debroot_extra[@]+"${debroot_extra[@]}"} "${debs[@]}" \
			${later:+"linux-image-$later" "linux-headers-$later" $next_also}
	}
	if [[ -n $next_release ]]; then
		later=$next_release apt_base "$1" "$2" --download-only >"$log" 2>&1 || {
			tail -n 20 "$log"
			echo "downloading the kernel update's headers failed"
			return 1
		}
		later=$next_release apt_base "$1" "$2" -s 2>/dev/null |
			sed -n 's/^Inst \([^ ]*\) \(\[[^]]*\] \)\?(\([^ ]*\) .*/\1 \3/p' | grep -v '^thpcow' | sort >"$vm_scratch/all-$1"
	fi
	exec 8>"$vm_cache/$series/.lock"
	flock 8
	# (a local .deb is not downloaded: prepare_root takes it from there)
	[[ -z $headers_deb ]] || cp -f "$headers_deb" "$archives/"
	apt_base "$1" "$2" --download-only >"$log" 2>&1 || {
		tail -n 20 "$log"
		echo "downloading what the packages need failed"
		return 1
	}
	sed -n 's/^Get:[0-9]* [^ ]* [^ ]* [^ ]* \([^ ]*\) .*/# downloaded \1/p' "$log" | grep -v "$version\$"
	# (an upgrade: Inst NAME [OLD] (NEW ...))
	apt_base "$1" "$2" -s 2>/dev/null | sed -n 's/^Inst \([^ ]*\) \(\[[^]]*\] \)\?(\([^ ]*\) .*/\1 \3/p' |
		grep -v '^thpcow' | sort >"$vm_scratch/needed-$1"
	[[ -z $next_release ]] || comm -23 "$vm_scratch/all-$1" "$vm_scratch/needed-$1" >"$vm_scratch/later-$1"
	flock -u 8
}

# prepare_root SUITE BASE: the cached root of SUITE with what
# $vm_scratch/needed-SUITE lists installed from a local repository of it
# (kept there as the root's only apt source): made on the host, under chroot,
# if missing or made from another list, kernel or root. Prints its path.
prepare_root() {
	local s=$1 base=$2 key
	key=$({ echo "recipe $debroot_recipe $release"; cat "$base/.thpcow-rootfs" "$vm_scratch/needed-$s" "$vm_scratch/later-$s"; } |
		sha256sum | cut -d' ' -f1)
	cached_root "$vm_cache/rootfs/$s-$debroot_name" "$key" "$base" \
		"what the packages need, installed on the host" debroot_install "$s"
}

# debroot_install SUITE ROOT: what the packages need ($vm_scratch/needed-SUITE,
# later-SUITE) installed in ROOT from the local repository, marked as the
# packages' dependencies would be.
debroot_install() {
	local s=$1 root=$2
	cat "$vm_scratch/needed-$s" "$vm_scratch/later-$s" | local_repo "$root" "$s" || return 1
	in_root "$root" "apt-get -q update && apt-get -q -y install $(tr ' ' = <"$vm_scratch/needed-$s" | tr '\n' ' ') &&
		apt-mark auto $(cut -d' ' -f1 "$vm_scratch/needed-$s" | tr '\n' ' ') &&
		apt-mark manual openssl mokutil linux-headers-$release ${debroot_extra[*]}"
}

# image SUITE: $vm_scratch/SUITE.img, a root disk of a copy of the prepared
# root with the two .debs in /var/local/thpcow-debs (the next version's in
# next/), and the test unit running debroot_guest with the files it needs
# (inguest_files, debroot_files).
image() {
	local s=$1 base prepared root=$vm_scratch/root
	base=$(vm/rootfs "$rootfs") || { echo "no $rootfs root filesystem (vm/rootfs $rootfs)"; return 1; }
	needed "$s" "$base" || return 1
	prepared=$(prepare_root "$s" "$base") || { echo "preparing the $s root failed"; return 1; }
	rm -rf "$root"
	cp -a "$prepared" "$root" || return 1
	mkdir -p "$root/var/local/thpcow-debs/next"
	cp "${debs[@]}" "$root/var/local/thpcow-debs/" || return 1
	[[ -z $debroot_next ]] || cp "${next_debs[@]}" "$root/var/local/thpcow-debs/next/" || return 1
	# each boot runs debroot_guest STAGE, STAGE from thpcow_stage= on the
	# kernel's command line ($$: systemd's $)
	# shellcheck disable=SC2016 # the guest's sh expands it
	sysguest_test_unit "$root" "$debroot_guest" \
		'for w in $$(cat /proc/cmdline); do case $$w in thpcow_stage=*) s=$${w#*=} ;; esac; done; /opt/thpcow-test/'"$debroot_guest"' $$s >tap-$$s.new 2>&1; mv tap-$$s.new tap-$$s; sync' \
		"${inguest_files[@]}" ${debroot_files[@]+"${debroot_files[@]}"} ||
		return 1
	echo "$version" >"$root/var/lib/thpcow-test/version"
	[[ -z $debroot_next ]] || echo "$next_version" >"$root/var/lib/thpcow-test/next-version"
	echo "$meta" >"$root/var/lib/thpcow-test/headers-meta"
	[[ -z $next_release ]] || echo "$next_release" >"$root/var/lib/thpcow-test/next-release"
	sysguest_disk "$root" "$vm_scratch/$s.img" || return 1
	rm -rf "$root"
}

# boot SUITE STAGE: one boot of SUITE's root disk running debroot_guest
# STAGE; its TAP read back with debugfs.
boot() {
	local s=$1 stage=$2 tap=$vm_scratch/tap-$1-$2 rc=0 t0=$SECONDS
	sysguest_boot "$kdir" "$vm_scratch/$s.img" "$debroot_timeout" "$threads" "thpcow_stage=$stage${append:+ $append}" || rc=$?
	sysguest_problems "$rc" "$debroot_timeout" || return 1
	debugfs -R "dump /var/lib/thpcow-test/tap-$stage $tap" "$vm_scratch/$s.img" >/dev/null 2>&1
	[[ -s $tap ]] || {
		tail -n 40 "$vm_scratch/console.log"
		echo "$debroot_guest $stage left no results"
		return 1
	}
	sed 's/^/guest: /' "$tap"
	echo "$s $stage: $((SECONDS - t0)) s"
	grep -q '^# Totals: pass:[0-9]* fail:0 skip:0' "$tap"
}

# kernels: kdir and release of the suite's kernel, next_release of its
# kernel update (none for bookworm)
kernels() {
	kdir=$(vm/fetch-kernel "$series") || { echo "no $series kernel (vm/fetch-kernel $series)"; return 1; }
	release=$(cat "$kdir/release") next_release=
	[[ -z $next ]] || next_release=$(cat "$(vm/fetch-kernel "$next")/release") || return 1
}
# install SUITE: the root disk made, and its first boot.
install() {
	local t0=$SECONDS
	suite "$1"
	packages || return 1
	kernels || return 1
	apt_lists_of || return 1
	image "$1" || return 1
	echo "$1: the root disk made in $((SECONDS - t0)) s"
	boot "$1" install
}