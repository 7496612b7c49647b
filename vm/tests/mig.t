#!/usr/bin/env bash
# jobs: 1
# vm/tests/mig.t: what vm/mig.py says of a run that failed. A destination
# whose vCPU lost its state, not the guest's memory, makes it exit 3 (which
# kvm.sh runs once more); anything else exits 1; the diagnosis comes after
# the traceback, last. Runs migfw (prog/migfw.bin) under this machine's
# QEMU with TCG, as mig.py starts it: no guest of vm/run, no module.
set -uo pipefail
vm=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/../../tests/lib/tap.sh
source "$vm/../tests/lib/tap.sh"

# migfw SCRIPT: python3 with mig and qemu imported, q (QMP) and p (Popen)
# of a 32 MiB migfw that has said 'R' and written its RAM 3 times ('W'),
# ram its size, base where its RAM is mapped, poke(guest address, bytes)
# writing into its RAM, and say() printing a diagnosis line; runs SCRIPT,
# then stops the QEMU.
migfw() {
	[[ -f $vm/../prog/migfw.bin ]] || skip "no prog/migfw.bin (make tools builds it)"
	command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64 (make deps installs it)"
	timeout 120 python3 - "$vm" "$1" <<'EOF'
import os, sys, tempfile, time
sys.path[:0] = [sys.argv[1], os.path.join(sys.argv[1], 'lib')]
import mig, qemu
d = tempfile.mkdtemp(prefix='mig.t.')
ram = 32 * 2**20
p, qp, sp = qemu.spawn_qemu('qemu-system-x86_64', d, 'dst', ram >> 20, mig.BOOT)
try:
    q, ser = qemu.connect_qemu(qp, sp)
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

    def say(line):
        print(f'diagnosis: {line}')
    exec(sys.argv[2])
finally:
    qemu.cleanup([p], d, 'mig.t')
EOF
}

# The destination stopped at a reset (the triple fault a lost vCPU state
# ends in; QMP's system_reset takes the same way to run state 'shutdown'),
# its RAM as migfw left it: lost, exit 3.
reset_with_ram_intact() {
	local out
	out=$(migfw "q.cmd('system_reset')
time.sleep(0.5)
print('status', q.cmd('query-status')['status'])
print('lost', mig.lost_state(q, p.pid, ram, False, say))")
	echo "$out"
	check_match "$out" $'status shutdown\n' "the run state after a reset"
	check_match "$out" 'stopped at a triple fault, its stack and pass numbers as migfw left them' "the diagnosis"
	check_match "$out" $'\nlost True$' "what lost_state() says"
}

# The same with one pass number changed, as a lost write would leave it:
# the guest's memory, not its CPU: not lost, exit 1.
reset_with_a_pass_number_changed() {
	local out
	out=$(migfw "poke(0x300000, b'\x77')
q.cmd('system_reset')
time.sleep(0.5)
print('lost', mig.lost_state(q, p.pid, ram, False, say))")
	echo "$out"
	check_match "$out" 'its RAM is not as migfw left it: the pages from 1 MiB up begin with 0x3 from 0x100000, 0x77 from 0x300000, 0x3 from 0x301000' "the diagnosis"
	check_match "$out" $'\nlost False$' "what lost_state() says"
}

# migfw's return address on its stack zeroed, then a command: migfw
# returns into its RAM and runs it, out of its image, in whatever state
# that leads to: its memory again, whatever its registers show (here a
# state it never enters, said to lost_state()): not lost.
stack_lost() {
	local out
	out=$(migfw "poke(mig.MIGFW_STACK - 4, bytes(4))
ser.send(b'W')
time.sleep(2)
regs = q.cmd('human-monitor-command', **{'command-line': 'info registers'})
print(next(line for line in regs.splitlines() if line.startswith('EIP=')))
print('lost', mig.lost_state(q, p.pid, ram, True, say))")
	echo "$out"
	check_match "$out" 'a vCPU held a state migfw never enters, and its RAM is not as migfw left it: the return address on its stack is 0x0, outside migfw' "the diagnosis"
	check_match "$out" $'\nlost False$' "what lost_state() says"
}

# A command answered with the byte of another (a 'K', a data check's
# answer, where a write pass answers 'D': asked here with a 'V'), the RAM
# intact: lost. An 'X' (the data check found the RAM changed) is migfw's
# own answer and never counts, RAM intact or not.
odd_answer() {
	local out
	out=$(migfw "ser.send(b'V')
try:
    ser.expect(b'D', 60)
except qemu.UnexpectedByte as e:
    print('lost', mig.lost_state(q, p.pid, ram, False, say, mig.odd_answer(e, ser)))
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

# A run that fails otherwise (here no QEMU starts: --qemu false) exits 1,
# the traceback first and mig.py's diagnosis last, with its exit status.
fails_diagnosed_last() {
	local rc=0 err
	err=$(timeout 300 python3 "$vm/mig.py" --qemu false fresh 2>&1 >/dev/null) || rc=$?
	printf '%s\n' "$err" | tail -n 5
	check_eq "$rc" 1 "mig.py's exit status"
	check_match "$err" 'Traceback' "the traceback"
	check_eq "$(printf '%s\n' "$err" | tail -n 1)" \
		'mig.py: diagnosis: exit 1: the run failed (traceback above)' "its last line"
}

cases=(
	reset_with_ram_intact            # a reset, migfw's RAM intact: the vCPU lost its state (exit 3)
	reset_with_a_pass_number_changed # a reset, a pass number changed: the memory (exit 1)
	stack_lost                       # migfw's return address lost: its memory, whatever its registers show
	odd_answer                       # a command answered with another's byte, RAM intact: lost; an X never
	registers                        # migfw's own registers pass; an outer kernel's 64-bit state does not
	fails_diagnosed_last             # any other failure: exit 1, the diagnosis after the traceback
)
tap_run "${cases[@]}"
