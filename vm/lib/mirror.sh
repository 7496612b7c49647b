# shellcheck shell=bash
# vm/lib/mirror.sh: the Debian mirror URIs the host's apt already uses,
# for vm/fetch-kernel and vm/kbuild, which reach other suites
# (bullseye, trixie, their security suites, trixie-backports) through them.
#   mirror main|security   print the URI of the main or the security archive
#   mirror_of SUITE        the one that serves SUITE (security for *-security)

mirror() {
	local uris
	uris=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		sed -n 's/^URIs:[[:space:]]*//p' | tr ' ' '\n'
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]\+\).*/\2/p')
	if [[ $1 == security ]]; then
		grep -m1 'security' <<<"$uris" || echo http://deb.debian.org/debian-security
	else
		grep -m1 -v 'security' <<<"$uris" || echo http://deb.debian.org/debian
	fi
}

mirror_of() {
	if [[ $1 == *-security ]]; then mirror security; else mirror main; fi
}
