# shellcheck shell=bash
# tests/lib/dkms-prebuilt.sh: for tests/host/deb.t and rpm.t.
#   dkms_for_prebuilt SRCTREE SERIES: the host's DKMS builds thpcow $version
#   from SRCTREE (a /usr/src holding thpcow-$version, as a package installs
#   it) against the headers package of SERIES, a prebuilt series of
#   vm/series (make bindeb-pkg's, unpacked into $tmp/SERIES), and the
#   module is for that kernel. Needs $tmp, $version and tests/lib/tap.sh.

# shellcheck source=SCRIPTDIR/../../vm/lib/prebuilt.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../vm/lib/prebuilt.sh"

# shellcheck disable=SC2154 # tmp and version are the caller's
dkms_for_prebuilt() {
	local src=$1 s=$2 where dir deb rel ko
	where=$(series_get "$s" source)
	dir=$prebuilt_shared/${where#shared:}
	deb=$(compgen -G "$dir/linux-headers-*.deb" | head -n1) || skip "no $dir/linux-headers-*.deb"
	rel=${deb##*/linux-headers-} rel=${rel%%_*}
	echo "$s: ${deb##*/}, Depends: $(dpkg-deb -f "$deb" Depends | grep . || echo none)"
	[[ -d $tmp/$s ]] || dpkg-deb -x "$deb" "$tmp/$s"
	rm -rf "$tmp/dkmstree-$s"
	mkdir -p "$tmp/dkmstree-$s"
	env -u THPCOW_WERROR dkms build -m thpcow -v "$version" --sourcetree "$src" \
		--dkmstree "$tmp/dkmstree-$s" -k "$rel" --kernelsourcedir "$tmp/$s/usr/src/linux-headers-$rel" \
		>"$tmp/dkms-$s.log" 2>&1 || {
		cat "$tmp/dkms-$s.log" "$tmp/dkmstree-$s/thpcow/$version/build/make.log"
		return 1
	}
	ko=$(find "$tmp/dkmstree-$s/thpcow/$version/$rel" -name 'thpcow.ko*' | head -n1)
	check_eq "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" "$rel" "$s: the module's kernel"
}
