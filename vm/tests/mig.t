#!/usr/bin/env bash
# jobs: 1
# vm/tests/mig.t: what vm/mig.py says of a run that failed. A migfw whose
# vCPU lost its state, not its memory, makes it exit 3 (which kvm.sh runs
# once more): only with migfw's RAM as its commands left it; anything else
# exits 1; the diagnosis comes after the traceback, last. Runs migfw
# (prog/migfw.bin) under this machine's QEMU with TCG, as mig.py starts it:
# no guest of vm/run, no module.
set -uo pipefail
vm=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/../../tests/lib/tap.sh
source "$vm/../tests/lib/tap.sh"

needs_migfw() {
	[[ -f $vm/../prog/migfw.bin ]] || skip "no prog/migfw.bin (make tools builds it)"
	command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64 (make deps installs it)"
}

# migfw SCRIPT: python3 with mig and qemu imported, q (QMP) and p (Popen)
# of a 32 MiB migfw that has said 'R' and written its RAM 3 times ('W',
# pass byte 0x3), ser its Serial, ram its size, poke(guest address, bytes)
# writing into its RAM, reset() (QMP's system_reset: run state 'shutdown',
# as a triple fault), and lost(held, odd) printing mig.lost_state()'s
# diagnosis and answer for it; runs SCRIPT, then stops the QEMU.
migfw() {
	needs_migfw
	timeout 120 python3 - "$vm" "$1" <<'EOF'
import os, sys, tempfile, time
sys.path[:0] = [sys.argv[1], os.path.join(sys.argv[1], 'lib')]
import mig, qemu
d = tempfile.mkdtemp(prefix='mig.t.')
ram = 32 * 2**20
p, qp, sp = qemu.spawn_qemu('qemu-system-x86_64', d, 'dst', ram >> 20, mig.BOOT)
try:
    q, ser = qemu.connect_qemu(qp, sp, p)
    q.cmd('cont')
    ser.expect(b'R', 60)
    for _ in range(3):
        ser.send(b'W')
        ser.expect(b'D', 60)
    base = qemu.ram_mapping(p.pid, ram)['start']

    def poke(addr, data):
        with open(f'/proc/{p.pid}/mem', 'r+b', buffering=0) as f:
            f.seek(base + addr)
            f.write(data)

    def pages(start, end, byte):
        for a in range(start, end, 4096):
            poke(a, bytes([byte]))

    def reset():
        q.cmd('system_reset')
        time.sleep(0.5)
        print('status', q.cmd('query-status')['status'])

    def lost(held=False, odd=None):
        print('lost', mig.lost_state('dst', q, p.pid, ram, ser.log, held, odd,
                                     lambda line: print(f'diagnosis: {line}')))
    exec(sys.argv[2])
finally:
    qemu.cleanup([p], d, 'mig.t')
EOF
}

# A reset (the end of a lost vCPU state, a triple fault), the RAM as
# migfw's commands left it: lost, exit 3.
reset_with_ram_intact() {
	local out
	out=$(migfw "reset(); lost()")
	echo "$out"
	check_match "$out" $'^status shutdown\n' "the run state after a reset"
	check_match "$out" 'stopped at a reset, its stack and pass numbers as migfw left them' "the diagnosis"
	check_match "$out" $'\nlost True$' "what lost_state() says"
}

# The same with one page's pass number changed, as a lost write leaves it:
# the guest's memory, not its CPU: not lost, exit 1.
reset_with_a_pass_number_changed() {
	local out
	out=$(migfw "poke(0x300000, b'\x77'); reset(); lost()")
	echo "$out"
	check_match "$out" 'its RAM is not as migfw left it: the page at 0x300000 begins with 0x77, not 0x3, after commands WWW' "the diagnosis"
	check_match "$out" $'\nlost False$' "what lost_state() says"
}

# A THP's worth of pages zeroed (a THP lost, or one that a fault zeroed
# instead of keeping), and an older pass below the last one: not lost.
reset_with_a_range_zeroed_or_older() {
	local out
	out=$(migfw "pages(0x400000, 0x600000, 0); reset(); lost()
pages(0x400000, 0x600000, 3); pages(0x100000, 0x200000, 1); lost()")
	echo "$out"
	check_match "$out" 'the page at 0x400000 begins with 0x0, not 0x3' "a zeroed range"
	check_match "$out" 'the page at 0x100000 begins with 0x1, not 0x3' "an older pass"
	[[ $(grep -c '^lost False$' <<<"$out") == 2 ]] || { echo "lost_state() said lost"; return 1; }
}

# A write pass sent but not answered: migfw may have done all of it, some
# (its own byte below, the last pass's above: it writes upwards) or none;
# the other way round is no pass of migfw's.
write_pass_unanswered() {
	local out
	out=$(migfw "ser.send(b'W'); time.sleep(1)
odd = 'an answer to a W that never came'
reset(); lost(odd=odd)
pages(0x1000000, ram, 3); lost(odd=odd)
pages(0x100000, 0x1000000, 3); pages(0x1000000, ram, 5); lost(odd=odd)")
	echo "$out"
	[[ $(grep -c '^lost True$' <<<"$out") == 2 ]] || { echo "a pass done, or half done, said not intact"; return 1; }
	check_match "$out" 'the page at 0x1000000 begins with 0x5, not 0x3 or 0x5' "an older pass below a newer one"
	check_match "$out" $'\nlost False$' "what lost_state() says of it"
}

# migfw's return address on its stack zeroed, then a command: migfw
# returns into its RAM and runs it to a triple fault: its memory, not
# lost. The same with an address in its image that no call of its pushes
# (0xf1000, zeros after its code). (One that leads to a call, which then
# pushes a right one, leaves no trace: its 'K' answer, 0xf00e8, answers a
# write pass 'K', with the RAM intact.)
stack_lost() {
	local out
	out=$(migfw "poke(mig.MIGFW_STACK - 4, bytes(4))
ser.send(b'W')
time.sleep(2)
print('status', q.cmd('query-status')['status'])
lost()")
	echo "$out"
	check_match "$out" $'^status shutdown\n' "the run state after a return to 0"
	check_match "$out" 'the return address on its stack is 0x0, not after one of its calls' "the diagnosis"
	check_match "$out" $'\nlost False$' "what lost_state() says"
	out=$(migfw "poke(mig.MIGFW_STACK - 4, (0xf1000).to_bytes(4, 'little'))
ser.send(b'W')
time.sleep(2)
print('status', q.cmd('query-status')['status'])
lost()")
	echo "$out"
	check_match "$out" $'^status shutdown\n' "the run state after a return to 0xf1000"
	check_match "$out" 'the return address on its stack is 0xf1000, not after one of its calls' "the diagnosis"
	check_match "$out" $'\nlost False$' "what lost_state() says"
}

# A command answered with the byte of another (a 'K', a data check's
# answer, where a write pass answers 'D': asked here with a 'V'), the RAM
# intact: lost. An 'X' (the data check found the RAM changed) is migfw's
# own answer and never counts, nor a byte from another serial port.
odd_answer() {
	local out
	out=$(migfw "ser.send(b'V')
try:
    ser.expect(b'D', 60)
except qemu.UnexpectedByte as e:
    lost(odd=mig.odd_answer(e, ser))
poke(0x300000, b'\x77')
ser.send(b'V')
try:
    ser.expect(b'K', 60)
except qemu.UnexpectedByte as e:
    print('X is odd:', mig.odd_answer(e, ser))
print('a K from another serial port:', mig.odd_answer(qemu.UnexpectedByte(None, b'K', b'D'), ser))")
	echo "$out"
	check_match "$out" "it answered b'K' where migfw answers b'D', its stack and pass numbers as migfw left them" "the diagnosis"
	check_match "$out" $'\nlost True\n' "what lost_state() says"
	check_match "$out" $'\nX is odd: None\n' "an X"
	check_match "$out" $'\na K from another serial port: None' "another port's answer"
}

# migfw's own registers are none that it never enters; the registers CI
# saw when QEMU 7.2's emulated SVM lost a vCPU's state are.
registers() {
	local out
	out=$(migfw "print('own', mig.migfw_never(q.cmd('human-monitor-command', **{'command-line': 'info registers'})))
print('lost', mig.migfw_never('''EAX=00000000 EBX=02000000 ECX=00000000 EDX=000003fd
CS =0010 0000000000000000 ffffffff 00a09b00 DPL=0 CS64 [-RA]
CR0=80050033 CR2=00007f0c5b2f0000 CR3=000000010a4b2000 CR4=00350ef0'''))")
	echo "$out"
	check_match "$out" $'^own None\n' "migfw's own registers"
	check_match "$out" $'\nlost a 64-bit code segment: CS =0010' "an outer kernel's registers"
}

# mig.py CASE ANSWER: mig.py CASE (fresh: no migration) whose data check
# gets ANSWER instead of migfw's 'K' (Serial.expect() patched); its exit
# status, and the end of its standard error shown.
mig_answered() {
	local rc=0 err
	err=$(timeout 120 python3 - "$vm" "$1" "$2" 2>&1 >/dev/null <<'EOF'
import os, sys
sys.path[:0] = [sys.argv[1], os.path.join(sys.argv[1], 'lib')]
import mig, qemu
expect = qemu.Serial.expect
answer = sys.argv[3].encode()


def answered(self, want, timeout=300):
    expect(self, want, timeout)
    if want == b'K':
        raise qemu.UnexpectedByte(self, answer, want)


qemu.Serial.expect = answered
sys.argv = ['mig.py', '--ram', '32', sys.argv[2]]
mig.main()
EOF
	) || rc=$?
	printf '%s\n' "$err" | tail -n 3
	echo "exit $rc"
}

# Through mig.py: a data check answered 'D' (no answer of migfw's to it):
# exit 3; answered 'X' (migfw's own, RAM changed): exit 1.
exits_by_answer() {
	needs_migfw
	local out
	out=$(mig_answered fresh D)
	echo "$out"
	check_match "$out" "dst: it answered b'D' where migfw answers b'K', its stack and pass numbers as migfw left them" "the diagnosis of a D"
	check_match "$out" $'exit 3: a vCPU lost its state\nexit 3$' "mig.py's exit status after a D"
	out=$(mig_answered fresh X)
	echo "$out"
	check_match "$out" $'exit 1: the run failed \\(traceback above\\)\nexit 1$' "mig.py's exit status after an X"
}

# A run that fails otherwise (here no QEMU starts: --qemu false) exits 1
# at once (QEMU's exit ends the wait for its sockets), the traceback first
# and mig.py's diagnosis last, with its exit status.
fails_diagnosed_last() {
	local rc=0 err
	err=$(timeout 30 python3 "$vm/mig.py" --qemu false fresh 2>&1 >/dev/null) || rc=$?
	printf '%s\n' "$err" | tail -n 5
	check_eq "$rc" 1 "mig.py's exit status"
	check_match "$err" 'QEMU exited, status 1, before it listened' "the traceback"
	check_eq "$(printf '%s\n' "$err" | tail -n 1)" \
		'mig.py: diagnosis: exit 1: the run failed (traceback above)' "its last line"
}

cases=(
	reset_with_ram_intact              # a reset, migfw's RAM intact: its vCPU lost its state (exit 3)
	reset_with_a_pass_number_changed   # a reset, a pass number changed: its memory (exit 1)
	reset_with_a_range_zeroed_or_older # a reset, a THP's worth of pages zeroed or an older pass below: its memory
	write_pass_unanswered              # an unanswered pass done, half done upwards: intact; downwards: not
	stack_lost                         # its return address lost or moved: its memory, whatever follows
	odd_answer                         # a command answered with another's byte, RAM intact: lost; an X never
	registers                          # migfw's own registers pass; an outer kernel's 64-bit state does not
	exits_by_answer                    # through mig.py: an odd answer exits 3, an X exits 1
	fails_diagnosed_last               # any other failure: exit 1 at once, the diagnosis after the traceback
)
tap_run "${cases[@]}"
