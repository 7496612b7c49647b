# shellcheck shell=bash
# vm/lib/source.sh: the Debian kernel source package of a series, for
# vm/selftests-build and vm/build-kernel. Needs $cache (.../thpcow) and
# die/note functions.
#   apt_for SERIES CMD...        an apt command with the package lists of SERIES
#                                (the host's for apt:host in vm/series; for the
#                                others the private configuration vm/fetch-kernel
#                                keeps)
#   kernel_source_of SERIES      "PACKAGE VERSION" of its linux-source, or nothing
#   kernel_source_tarball SERIES PACKAGE VERSION   the tarball on stdout

: "${cache:?vm/lib/source.sh needs \$cache}"
_source_here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=SCRIPTDIR/series.sh
source "$_source_here/lib/series.sh"

# host_apt SERIES: whether SERIES' packages come through the host's own apt.
host_apt() { [[ $(series_get "$1" source) == apt:host ]]; }

installed() { [[ $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) == "install ok installed" ]]; }

apt_for() {
	local series=$1 conf=$cache/$1/apt
	shift
	if host_apt "$series"; then
		"$@" -q
	else
		"$@" -q -o APT::Sandbox::User=root -o "Dir::Etc::SourceList=$conf/sources.list" \
			-o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$conf/lists" \
			-o "Dir::Cache=$conf/cache"
	fi
}

declare -A _kernel_sources=()
kernel_source_of() {
	local series=$1 pkg
	if [[ -z ${_kernel_sources[$series]:-} ]]; then
		host_apt "$series" || "$_source_here/fetch-kernel" "$series" >/dev/null ||
			die "no apt configuration for $series (vm/fetch-kernel $series failed)"
		pkg=$(apt_for "$series" apt-cache show --no-all-versions linux-source 2>/dev/null |
			sed -n 's/^Depends: \(linux-source-[0-9.]*\).*/\1/p')
		[[ -n $pkg ]] && _kernel_sources[$series]="$pkg $(apt_for "$series" apt-cache show --no-all-versions \
			"$pkg" | sed -n 's/^Version: //p')"
	fi
	echo "${_kernel_sources[$series]:-}"
}

# The package's own tarball in /usr/src when that version is installed (make
# deps installs linux-source-6.1), else from the .deb, downloaded once into
# $cache/sources/.
kernel_source_tarball() {
	local series=$1 pkg=$2 version=$3 deb dir=$cache/sources
	if [[ -f /usr/src/$pkg.tar.xz ]] && installed "$pkg" &&
		[[ $(dpkg-query -W -f='${Version}' "$pkg") == "$version" ]]; then
		cat "/usr/src/$pkg.tar.xz"
		return
	fi
	deb=$dir/${pkg}_${version//:/%3a}_all.deb
	if [[ ! -s $deb ]]; then
		mkdir -p "$dir"
		rm -f "$dir/${pkg}_"*.deb # older versions
		note "downloading $pkg $version"
		(cd "$dir" && apt_for "$series" apt-get download "$pkg=$version" >&2)
	fi
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$pkg.tar.xz"
}
