# shellcheck shell=bash
# vm/lib/series.sh: the table of kernel series, vm/series, for every vm/
# tool (and the tests that ask the harness which series there are).
# Sourcing it reads the table (vm/series, or $THPCOW_SERIES_FILE: the
# harness's own tests try tables of their own) and exits 1 when a line has
# more or fewer columns than the header names.
#   series_names           every series, one a line, in the table's order
#   series_known SERIES    whether SERIES is in the table
#   series_get SERIES COL  SERIES' value of the column COL (a name of the
#                          header: source, chroot, gcc, tcg, cpu-off,
#                          selftests); fails when either is unknown
#   series_list            the series joined by ", ", for messages that
#                          refuse an unknown one
#   series_columns         the header's column names, one a line

series_file=${THPCOW_SERIES_FILE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/series}
declare -gA _series=() # [SERIES/COLUMN]=value (global even when sourced in a function)
_series_names=() _series_columns=()

_series_read() {
	local line n=0 words i
	while IFS= read -r line || [[ -n $line ]]; do
		n=$((n + 1))
		line=${line%%#*}
		read -ra words <<<"$line"
		((${#words[@]})) || continue
		if ((${#_series_columns[@]} == 0)); then
			_series_columns=("${words[@]}")
			continue
		fi
		if ((${#words[@]} != ${#_series_columns[@]})); then
			echo "$series_file:$n: ${#words[@]} columns where the header has ${#_series_columns[@]}" \
				"(${_series_columns[*]})" >&2
			return 1
		fi
		_series_names+=("${words[0]}")
		for i in "${!words[@]}"; do _series[${words[0]}/${_series_columns[i]}]=${words[i]}; done
	done <"$series_file"
	((${#_series_names[@]})) || { echo "$series_file: no series" >&2 && return 1; }
}
_series_read || exit 1

series_names() { printf '%s\n' "${_series_names[@]}"; }
series_columns() { printf '%s\n' "${_series_columns[@]}"; }
series_known() { [[ -n $1 && -n ${_series[$1/series]:-} ]]; }
series_get() {
	series_known "$1" && [[ -n ${_series[$1/$2]:-} ]] || return 1
	echo "${_series[$1/$2]}"
}
series_list() {
	local out
	out=$(printf '%s, ' "${_series_names[@]}")
	echo "${out%, }"
}
