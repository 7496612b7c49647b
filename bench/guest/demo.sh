#!/usr/bin/env bash
# The demo's guest side (see bench/demo): the seed's mechanism, write after
# read, on this guest's kernel, one line per case:
#   CASE|time_ns|faults|faults_per_2m|thp_split_pmd|anon_huge_kb|read_rss_kb|verify
# Cases: the stock path, thpcow 'zero' (when the module is loaded), and a
# first-touch write (no read first), the floor.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
wrf=$repo/prog/wrf
ctl=$repo/tools/thpcowctl/thpcowctl
size=${THPCOW_DEMO_MIB:-1024}

row() {
	local name=$1
	shift
	"$@" | awk -F= -v name="$name" '
		{ v[$1] = $2 }
		END { print name "|" v["time_ns"] "|" v["faults"] "|" v["faults_per_2m"] "|" \
			v["thp_split_pmd"] "|" v["anon_huge_kb"] "|" v["read_rss_kb"] "|" v["verify"] }'
}

# The first pass over guest memory also faults in QEMU's own: warm up.
"$wrf" --size "$size" --no-read >/dev/null
row stock "$wrf" --size "$size" --verify
if [[ -e /dev/thpcow ]]; then
	row zero "$ctl" exec zero -- "$wrf" --size "$size" --verify
fi
row first-touch "$wrf" --size "$size" --no-read --verify
