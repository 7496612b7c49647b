# shellcheck shell=bash
# tests/lib/tap.sh: TAP 13 for shell tests, kselftest style.
#
# A test file lists its cases once, as function names with a comment each;
# the plan is computed from that list, never counted by hand:
#
#   source "$(dirname "$0")/../lib/tap.sh"
#   exit_status() { ...; }          # one case: a function
#   cases=(
#       exit_status   # COMMAND's exit status comes back
#   )
#   tap_run "${cases[@]}"
#
# Cases that only make check-all runs (a long run that repeats what another
# case already checks, on one more series, say) follow --long:
#
#   long_cases=(
#       trixie    # the same on Debian 13 (10 minutes)
#   )
#   tap_run "${cases[@]}" --long "${long_cases[@]}"
#
# With THPCOW_CHECK=all (make check-all) they are planned and run after the
# others; without, they are not planned, and one diagnostic line names them.
#
# Each case runs in its own subshell with errexit on: it passes when it returns
# 0 and fails at its first failing command (use the check helpers below for a
# readable reason). `skip REASON` ends it as skipped. Whatever it prints goes
# to the TAP stream as `# ` diagnostics. tap_run prints `TAP version 13`, the
# plan, one `ok`/`not ok` line per case and `# Totals: pass:N fail:N skip:N`,
# then exits 1 if any case failed, else 0. TAP_ONLY='case ...' in the
# environment runs only those cases (the others are skipped); TAP_SKIP='case
# ...' skips those.
#
# A case that runs a guest's TAP (a host .t around vm/run) shows that TAP as
# its diagnostics, which nobody counts; `tap_fold TAP` (in the case) makes
# each of the guest's skipped cases a counted line of the host file's, after
# the case's own: "ok N CASE: GUEST-CASE # SKIP why". Their number is known
# only once the guests ran, so a file that folds sets tap_plan_last=1 before
# tap_run, which then prints the plan last (TAP 13 allows it there).

tap_skip_file=''
tap_fold_file=''
tap_plan_last=0

# skip REASON: end the current case as skipped.
skip() {
	echo "$*" >"$tap_skip_file"
	exit 4 # kselftest's KSFT_SKIP
}

# tap_fold TAP: the skipped cases ("ok N NAME # SKIP why") of a guest's TAP
# output, to be counted after the current case (see above).
tap_fold() {
	[[ -n $tap_fold_file ]] || { echo "tap_fold: the file must set tap_plan_last=1" && return 1; }
	sed -nE 's/^ok [0-9]+ +([^#]*[^# ]) *# *[Ss][Kk][Ii][Pp] *(.*)$/\1 # SKIP \2/p' <<<"$1" >>"$tap_fold_file"
}

# check_eq GOT WANT WHAT: fail the case unless GOT is WANT.
check_eq() {
	[[ $1 == "$2" ]] && return
	echo "$3: got '$1', want '$2'"
	return 1
}

# check_match TEXT REGEX WHAT: fail the case unless TEXT matches REGEX
# (an ERE: a literal { needs a backslash); a REGEX that is not one fails
# saying so.
check_match() {
	local rc=0
	# shellcheck disable=SC2319 # [[ =~ ]]'s own status: 2 for a bad REGEX
	[[ $1 =~ $2 ]] || rc=$?
	((rc != 0)) || return 0
	if ((rc == 2)); then
		echo "$3: /$2/ is not a valid regular expression"
	else
		echo "$3: '$1' does not match /$2/"
	fi
	return 1
}

# env_count VAR NAME: set VAR (which holds the default) to the environment
# variable NAME, if set (an override of a number of rounds, seconds or
# calls). A value that is not a whole number of at least 1 ends the test file with
# "Bail out!" (no plan, which tests/check counts as a failure): 0 rounds
# would make a case pass that tested nothing.
env_count() {
	local -n env_count_var=$1
	env_count_var=${!2:-$env_count_var}
	[[ $env_count_var =~ ^[1-9][0-9]*$ ]] && return
	echo "Bail out! $2='$env_count_var': not a whole number of at least 1"
	exit 2
}

# tap_run CASE... [--long CASE...]: run the cases in order and report them.
tap_run() {
	local n=0 pass=0 fail=0 skipped=0 c rc run=() long=() in_long=0 line
	for c; do
		if [[ $c == --long ]]; then
			in_long=1
		elif ((in_long)); then
			long+=("$c")
		else
			run+=("$c")
		fi
	done
	if [[ ${THPCOW_CHECK:-} == all ]]; then
		run+=(${long[@]+"${long[@]}"})
		long=()
	fi
	tap_skip_file=$(mktemp)
	((!tap_plan_last)) || tap_fold_file=$(mktemp)
	echo "TAP version 13"
	((tap_plan_last)) || echo "1..${#run[@]}"
	((${#long[@]} == 0)) || echo "# long, not planned (THPCOW_CHECK=all, make check-all, runs them): ${long[*]}"
	for c in ${run[@]+"${run[@]}"}; do
		n=$((n + 1))
		if [[ -n ${TAP_ONLY:-} && " $TAP_ONLY " != *" $c "* ]]; then
			echo "ok $n $c # SKIP not in TAP_ONLY"
			skipped=$((skipped + 1))
			continue
		fi
		if [[ " ${TAP_SKIP:-} " == *" $c "* ]]; then
			echo "ok $n $c # SKIP in TAP_SKIP"
			skipped=$((skipped + 1))
			continue
		fi
		: >"$tap_skip_file"
		[[ -z $tap_fold_file ]] || : >"$tap_fold_file"
		set +e
		(
			set -e
			"$c"
		) 2>&1 </dev/null | sed -u 's/^/# /'
		rc=${PIPESTATUS[0]}
		if ((rc == 0)); then
			echo "ok $n $c"
			pass=$((pass + 1))
		elif ((rc == 4)) && [[ -s $tap_skip_file ]]; then
			echo "ok $n $c # SKIP $(cat "$tap_skip_file")"
			skipped=$((skipped + 1))
		else
			echo "not ok $n $c"
			fail=$((fail + 1))
		fi
		# the guests' skipped cases, counted after it
		while [[ -n $tap_fold_file ]] && read -r line; do
			n=$((n + 1))
			echo "ok $n $c: $line"
			skipped=$((skipped + 1))
		done <"${tap_fold_file:-/dev/null}"
	done
	rm -f "$tap_skip_file" "$tap_fold_file"
	((!tap_plan_last)) || echo "1..$n"
	echo "# Totals: pass:$pass fail:$fail skip:$skipped"
	((fail == 0))
}
