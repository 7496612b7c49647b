#!/usr/bin/env bash
# make bench's guest driver (bench/run boots the guest): runs each workload
# named (w1 .. w7) and writes its JSON lines to $THPCOW_VM_OUT/WORKLOAD.jsonl,
# with a line of progress on stderr for each.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${THPCOW_VM_OUT:?not in a vm/run guest}
for w in "$@"; do
	t0=${EPOCHREALTIME/./}
	echo "bench: $(uname -r): $w ..." >&2
	case $w in
	w1 | w2) "$here/wrf.sh" "$w" ;;
	w3) "$here/overhead.sh" ;;
	w4) "$here/khugepaged.sh" ;;
	w5) "$here/mig.sh" ;;
	w6) "$here/copy.sh" ;;
	w7) "$here/memtester.sh" ;;
	*)
		echo "bench/guest/run.sh: no workload $w" >&2
		exit 2
		;;
	esac >"$out/$w.jsonl"
	echo "bench: $(uname -r): $w done in $(((${EPOCHREALTIME/./} - t0) / 1000000)) s" \
		"($(wc -l <"$out/$w.jsonl") results; load $(cut -d' ' -f1 /proc/loadavg))" >&2
done
