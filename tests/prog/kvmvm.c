// SPDX-License-Identifier: GPL-2.0
/*
 * kvmvm: a tiny VMM for the KVM tests (tests/guest/kvm*.sh). Its guest is
 * a few instructions in 32-bit protected mode (no paging) at 0x1000 that,
 * told by the VMM, write a byte every STRIDE bytes of a range of guest
 * physical memory or count the bytes there that differ from one; so its
 * accesses are KVM's NPT faults on this process's RAM mapping, resolved
 * through GUP as a production guest's are. The VMM itself writes and
 * reads that RAM too, through /proc/self/mem (as a device's DMA does) and
 * through its own mapping. RAM is anonymous, 2 MiB aligned, MADV_HUGEPAGE;
 * the ranges tested start at 2 MiB (the first 2 MiB hold the code).
 *
 * Scenarios (key=value lines on stdout; exit 1 on a data mismatch):
 *   dma       the guest reads its RAM (its NPT maps the huge zero page),
 *             then the VMM writes a byte per 4 KiB through /proc/self/mem:
 *             the guest must see every one; then the guest writes a byte
 *             per 4 KiB: the VMM must see every one
 *   fork-dma  the guest writes its RAM (THPs), the VMM forks (the child
 *             shares them), the guest reads them (its NPT maps the shared
 *             THPs), the VMM writes through /proc/self/mem: the guest must
 *             see that, the child its old data
 *   race      ROUNDS times: the RAM is dropped (MADV_DONTNEED), the guest
 *             reads it (huge zero page), then two vCPUs write the same
 *             pages at once (vCPU 0 byte 0, vCPU 1 byte 1 of every 4 KiB)
 *             while a VMM thread reads them: every byte must be there
 *   collapse  the guest reads, then writes, its RAM (on a stock kernel
 *             that leaves it split into 4 KiB pages), then keeps writing
 *             while `CTL collapse --pid` runs on this process; the guest
 *             then checks its data and reads it all again, and KVM's
 *             mappings by size are reported
 * KVM's mappings of the guest's RAM come from debugfs
 * (kvm/PID-FD/pages_4k, pages_2m).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "prog.h"

#define MIB (1UL << 20)
#define HPAGE (2 * MIB)
#define PAGE 4096UL
#define CODE_GPA 0x1000UL
#define PORT 0x10

/* The guest: OUT to PORT hands control to the VMM, which sets EAX (the
 * operation: 1 write, 2 check), EDI (the first address), ECX (how many
 * bytes), EBP (the stride) and DL (the byte); a check leaves the number of
 * bytes that differ in EAX for the next exit. */
asm(".pushsection .rodata.kvmvm_guest, \"a\"\n"
    ".globl kvmvm_guest, kvmvm_guest_end\n"
    "kvmvm_guest:\n"
    ".code32\n"
    "1:	out %al, $0x10\n"
    "	cmp $1, %eax\n"
    "	je 2f\n"
    "	cmp $2, %eax\n"
    "	je 3f\n"
    "	jmp 1b\n"
    "2:	mov %dl, (%edi)\n"
    "	add %ebp, %edi\n"
    "	loop 2b\n"
    "	xor %eax, %eax\n"
    "	jmp 1b\n"
    "3:	xor %ebx, %ebx\n"
    "4:	cmp %dl, (%edi)\n"
    "	je 5f\n"
    "	inc %ebx\n"
    "5:	add %ebp, %edi\n"
    "	loop 4b\n"
    "	mov %ebx, %eax\n"
    "	jmp 1b\n"
    ".code64\n"
    "kvmvm_guest_end:\n"
    ".popsection\n");
extern const unsigned char kvmvm_guest[], kvmvm_guest_end[];

enum { OP_WRITE = 1, OP_CHECK = 2 };

struct vcpu {
	int fd;
	struct kvm_run *run;
};

static int kvm_fd, vm_fd;
static unsigned char *ram;
static size_t ram_size;
static struct vcpu vcpus[2];

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kvmvm [--mib N] [--rounds N] [--ctl THPCOWCTL] dma|fork-dma|race|collapse\n"
		"A tiny KVM VMM whose guest reads and writes its RAM while the VMM does\n"
		"(the header of tests/prog/kvmvm.c says what each scenario checks).\n"
		"  --mib N       guest RAM in MiB, a multiple of 2, at least 4 (default 64)\n"
		"  --rounds N    race: how many rounds (default 4)\n"
		"  --ctl PATH    collapse: thpcowctl (default thpcowctl)\n");
}

static void vcpu_create(int i)
{
	struct kvm_sregs sregs;
	struct kvm_regs regs = { .rip = CODE_GPA, .rflags = 2 };
	struct kvm_segment code = {
		.base = 0, .limit = 0xffffffff, .selector = 8, .type = 11,
		.present = 1, .db = 1, .s = 1, .g = 1,
	};
	struct kvm_segment data = code;
	int size;

	vcpus[i].fd = ioctl(vm_fd, KVM_CREATE_VCPU, i);
	if (vcpus[i].fd < 0)
		die(1, "KVM_CREATE_VCPU: %s", strerror(errno));
	size = ioctl(kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	vcpus[i].run = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			    vcpus[i].fd, 0);
	if (size < 0 || vcpus[i].run == MAP_FAILED)
		die(1, "mapping vCPU %d's kvm_run: %s", i, strerror(errno));
	if (ioctl(vcpus[i].fd, KVM_GET_SREGS, &sregs))
		die(1, "KVM_GET_SREGS: %s", strerror(errno));
	data.selector = 16;
	data.type = 3;
	sregs.cs = code;
	sregs.ds = sregs.es = sregs.fs = sregs.gs = sregs.ss = data;
	sregs.cr0 |= 1; /* protected mode, no paging */
	if (ioctl(vcpus[i].fd, KVM_SET_SREGS, &sregs) ||
	    ioctl(vcpus[i].fd, KVM_SET_REGS, &regs))
		die(1, "setting vCPU %d's registers: %s", i, strerror(errno));
}

/* Run vCPU i until its guest's next OUT to PORT; returns its EAX. */
static uint32_t vcpu_run(int i)
{
	struct kvm_run *run = vcpus[i].run;
	struct kvm_regs regs;

	for (;;) {
		if (ioctl(vcpus[i].fd, KVM_RUN, 0) && errno != EINTR)
			die(1, "KVM_RUN: %s", strerror(errno));
		if (run->exit_reason == KVM_EXIT_IO && run->io.port == PORT)
			break;
		if (run->exit_reason != KVM_EXIT_INTR)
			die(1, "vCPU %d: unexpected exit %u", i, run->exit_reason);
	}
	if (ioctl(vcpus[i].fd, KVM_GET_REGS, &regs))
		die(1, "KVM_GET_REGS: %s", strerror(errno));
	return regs.rax;
}

/* Have vCPU i's guest do op over [gpa, gpa + len) every stride bytes. */
static uint32_t guest_op(int i, int op, uint64_t gpa, uint64_t len,
			 uint64_t stride, unsigned char byte)
{
	struct kvm_regs regs;

	if (ioctl(vcpus[i].fd, KVM_GET_REGS, &regs))
		die(1, "KVM_GET_REGS: %s", strerror(errno));
	regs.rax = op;
	regs.rdi = gpa;
	regs.rcx = len / stride;
	regs.rbp = stride;
	regs.rdx = byte;
	if (ioctl(vcpus[i].fd, KVM_SET_REGS, &regs))
		die(1, "KVM_SET_REGS: %s", strerror(errno));
	return vcpu_run(i);
}

/* The tested range: from 2 MiB to the end of RAM. */
#define TEST_GPA HPAGE
#define TEST_LEN (ram_size - HPAGE)

static uint32_t guest_check(int i, unsigned int off, unsigned char byte)
{
	return guest_op(i, OP_CHECK, TEST_GPA + off, TEST_LEN, PAGE, byte);
}

static void guest_write(int i, unsigned int off, unsigned char byte)
{
	guest_op(i, OP_WRITE, TEST_GPA + off, TEST_LEN, PAGE, byte);
}

static void vm_create(size_t mib, int nvcpus)
{
	struct kvm_userspace_memory_region region;
	unsigned char *p;

	kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm_fd < 0)
		die(1, "/dev/kvm: %s", strerror(errno));
	vm_fd = ioctl(kvm_fd, KVM_CREATE_VM, 0);
	if (vm_fd < 0)
		die(1, "KVM_CREATE_VM: %s", strerror(errno));
	ram_size = mib * MIB;
	p = mmap(NULL, ram_size + HPAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		die(1, "mmap %zu MiB: %s", mib, strerror(errno));
	ram = (unsigned char *)(((uintptr_t)p + HPAGE - 1) & ~(HPAGE - 1));
	if (madvise(ram, ram_size, MADV_HUGEPAGE))
		die(1, "MADV_HUGEPAGE: %s", strerror(errno));
	memcpy(ram + CODE_GPA, kvmvm_guest, kvmvm_guest_end - kvmvm_guest);
	region = (struct kvm_userspace_memory_region){
		.slot = 0, .guest_phys_addr = 0, .memory_size = ram_size,
		.userspace_addr = (uintptr_t)ram,
	};
	if (ioctl(vm_fd, KVM_SET_USER_MEMORY_REGION, &region))
		die(1, "KVM_SET_USER_MEMORY_REGION: %s", strerror(errno));
	for (int i = 0; i < nvcpus; i++) {
		vcpu_create(i);
		vcpu_run(i); /* to its first OUT */
	}
}

/*
 * KVM's mappings of this VM's memory of one size (debugfs), or -1. 5.10
 * counts only the large ones, as largepages (pages_4k and pages_2m came
 * with 5.13), and not only those mapped now: measured, it grows with each
 * 2 MiB mapping made and drops by less when they are zapped, so on 5.10
 * "at least N" is all it can say.
 */
static long kvm_pages(const char *which)
{
	char path[128];
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/kvm/%d-%d/%s",
		 getpid(), vm_fd, which);
	f = fopen(path, "r");
	if (!f && !strcmp(which, "pages_2m"))
		return kvm_pages("largepages");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

static void report_kvm(const char *when)
{
	printf("%s_pages_2m=%ld\n%s_pages_4k=%ld\n", when, kvm_pages("pages_2m"),
	       when, kvm_pages("pages_4k"));
}

/* The VMM writes byte at off of every 4 KiB of the tested range through
 * /proc/self/mem, as a device's DMA (or vhost) writes guest memory. */
static void dma_write(unsigned int off, unsigned char byte)
{
	int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die(1, "/proc/self/mem: %s", strerror(errno));
	for (size_t a = TEST_GPA + off; a < ram_size; a += PAGE)
		if (pwrite(fd, &byte, 1, (uintptr_t)(ram + a)) != 1)
			die(1, "writing /proc/self/mem: %s", strerror(errno));
	close(fd);
}

/* Bytes at off of every 4 KiB of the tested range, as the VMM's own
 * mapping sees them, that are not byte. */
static size_t host_check(unsigned int off, unsigned char byte)
{
	size_t bad = 0;

	for (size_t a = TEST_GPA + off; a < ram_size; a += PAGE)
		bad += ((volatile unsigned char *)ram)[a] != byte;
	return bad;
}

static int verdict(size_t bad, const char *what)
{
	printf("%s_mismatches=%zu\n", what, bad);
	return bad != 0;
}

static int scenario_dma(void)
{
	int fail = 0;

	fail |= verdict(guest_check(0, 0, 0), "guest_read_zero");
	report_kvm("read");
	dma_write(0, 0x5a);
	fail |= verdict(guest_check(0, 0, 0x5a), "guest_sees_dma");
	guest_write(0, 1, 0xa5);
	fail |= verdict(host_check(1, 0xa5), "vmm_sees_guest");
	fail |= verdict(host_check(0, 0x5a), "vmm_sees_dma");
	report_kvm("end");
	return fail;
}

static int scenario_fork_dma(void)
{
	int fail = 0, pipefd[2], status;
	pid_t child;
	char c;

	guest_write(0, 0, 0x11);
	if (pipe(pipefd))
		die(1, "pipe: %s", strerror(errno));
	child = fork();
	if (child < 0)
		die(1, "fork: %s", strerror(errno));
	if (child == 0) {
		/* The child only holds the shared pages, then checks them. */
		close(pipefd[1]);
		if (read(pipefd[0], &c, 1) != 1)
			_exit(3);
		_exit(host_check(0, 0x11) ? 1 : 0);
	}
	close(pipefd[0]);
	fail |= verdict(guest_check(0, 0, 0x11), "guest_reads_shared");
	report_kvm("shared");
	dma_write(0, 0x22);
	fail |= verdict(guest_check(0, 0, 0x22), "guest_sees_dma");
	fail |= verdict(host_check(0, 0x22), "vmm_sees_dma");
	guest_write(0, 1, 0x33);
	fail |= verdict(host_check(1, 0x33), "vmm_sees_guest");
	if (write(pipefd[1], "", 1) != 1 || waitpid(child, &status, 0) != child)
		die(1, "the child: %s", strerror(errno));
	printf("child_data=%s\n", WIFEXITED(status) && !WEXITSTATUS(status) ? "ok" : "bad");
	fail |= !(WIFEXITED(status) && !WEXITSTATUS(status));
	report_kvm("end");
	return fail;
}

static atomic_int racing;
static atomic_ulong reader_passes;

/*
 * vCPU 1 runs in a thread of its own for its whole life (KVM waits for an
 * RCU grace period whenever another thread takes over a vCPU): it does
 * vcpu1_job when vcpu1_go is posted, then posts vcpu1_done.
 */
static struct {
	int op;
	unsigned int off;
	unsigned char byte;
	uint32_t ret;
} vcpu1_job;
static sem_t vcpu1_go, vcpu1_done;

static void *vcpu1_thread(void *arg)
{
	(void)arg;
	for (;;) {
		while (sem_wait(&vcpu1_go))
			;
		vcpu1_job.ret = guest_op(1, vcpu1_job.op, TEST_GPA + vcpu1_job.off,
					 TEST_LEN, PAGE, vcpu1_job.byte);
		sem_post(&vcpu1_done);
	}
	return NULL;
}

static void vcpu1_start(int op, unsigned int off, unsigned char byte)
{
	vcpu1_job.op = op;
	vcpu1_job.off = off;
	vcpu1_job.byte = byte;
	sem_post(&vcpu1_go);
}

static uint32_t vcpu1_wait(void)
{
	while (sem_wait(&vcpu1_done))
		;
	return vcpu1_job.ret;
}

static uint32_t vcpu1_check(unsigned int off, unsigned char byte)
{
	vcpu1_start(OP_CHECK, off, byte);
	return vcpu1_wait();
}

/* A round that does not end within a minute is a hang: say where. */
static const char *volatile race_step = "start";
static volatile unsigned int race_round;

static void race_alarm(int sig)
{
	char msg[160];
	int n;

	(void)sig;
	n = snprintf(msg, sizeof(msg), "kvmvm: race: round %u stuck at %s for 60 s\n",
		     race_round, race_step);
	if (write(2, msg, n) < 0)
		_exit(1);
	_exit(1);
}

static void *reader(void *arg)
{
	unsigned long sum = 0;

	(void)arg;
	while (atomic_load(&racing)) {
		for (size_t a = TEST_GPA; a < ram_size && atomic_load(&racing); a += PAGE)
			sum += ((volatile unsigned char *)ram)[a];
		atomic_fetch_add(&reader_passes, 1);
		sched_yield(); /* the vCPUs may have fewer CPUs than threads */
	}
	return (void *)sum;
}

static int scenario_race(unsigned int rounds)
{
	size_t bad_host = 0, bad_guest = 0;
	pthread_t t1, tr;
	unsigned char b0, b1;
	long pages_2m = -1;

	if (sem_init(&vcpu1_go, 0, 0) || sem_init(&vcpu1_done, 0, 0) ||
	    pthread_create(&t1, NULL, vcpu1_thread, NULL))
		die(1, "starting vCPU 1's thread failed");
	signal(SIGALRM, race_alarm);
	for (unsigned int r = 0; r < rounds; r++) {
		race_round = r + 1;
		alarm(60);
		b0 = 0x40 + r;
		b1 = 0x80 + r;
		race_step = "MADV_DONTNEED";
		if (madvise(ram + TEST_GPA, TEST_LEN, MADV_DONTNEED))
			die(1, "MADV_DONTNEED: %s", strerror(errno));
		race_step = "the reads before";
		bad_guest += guest_check(0, 0, 0) + vcpu1_check(1, 0);
		race_step = "the racing writes";
		atomic_store(&racing, 1);
		if (pthread_create(&tr, NULL, reader, NULL))
			die(1, "pthread_create failed");
		vcpu1_start(OP_WRITE, 1, b1);
		guest_write(0, 0, b0);
		vcpu1_wait();
		atomic_store(&racing, 0);
		pthread_join(tr, NULL);
		race_step = "the checks after";
		bad_host += host_check(0, b0) + host_check(1, b1);
		bad_guest += guest_check(0, 0, b0) + vcpu1_check(1, b1) +
			     guest_check(0, 1, b1) + vcpu1_check(0, b0);
		if (r == 0)
			pages_2m = kvm_pages("pages_2m");
	}
	alarm(0);
	printf("rounds=%u\nreader_passes=%lu\nround1_pages_2m=%ld\n", rounds,
	       atomic_load(&reader_passes), pages_2m);
	report_kvm("end");
	return verdict(bad_host, "vmm_sees_guests") | verdict(bad_guest, "guests_see_guests");
}

static atomic_int writing;
static atomic_uint passes;

static void *guest_keeps_writing(void *arg)
{
	(void)arg;
	while (atomic_load(&writing)) {
		guest_write(0, 0, 1 + atomic_load(&passes) % 250);
		atomic_fetch_add(&passes, 1);
	}
	return NULL;
}

static long anon_huge_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

static int scenario_collapse(const char *ctl)
{
	char pid[32], cmd[512];
	pthread_t t;
	int fail = 0, rc;
	unsigned int last;

	fail |= verdict(guest_check(0, 0, 0), "guest_read_zero");
	guest_write(0, 0, 0x77);
	printf("before_anon_huge_kb=%ld\n", anon_huge_kb());
	report_kvm("before");
	atomic_store(&writing, 1);
	if (pthread_create(&t, NULL, guest_keeps_writing, NULL))
		die(1, "pthread_create failed");
	snprintf(pid, sizeof(pid), "%d", getpid());
	snprintf(cmd, sizeof(cmd), "'%s' collapse --pid %s >&2", ctl, pid);
	rc = system(cmd);
	atomic_store(&writing, 0);
	pthread_join(t, NULL);
	last = atomic_load(&passes) - 1;
	printf("collapse_rc=%d\nwrite_passes=%u\n", WIFEXITED(rc) ? WEXITSTATUS(rc) : -1,
	       atomic_load(&passes));
	printf("after_anon_huge_kb=%ld\n", anon_huge_kb());
	fail |= verdict(guest_check(0, 0, 1 + last % 250), "guest_data");
	fail |= verdict(host_check(0, 1 + last % 250), "vmm_sees_guest");
	report_kvm("after");
	return fail;
}

int main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "mib", required_argument, NULL, 'm' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "ctl", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	unsigned long long mib = 64, rounds = 4;
	const char *ctl = "thpcowctl", *what;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			mib = number_arg("--mib", optarg, 4, 4096);
			if (mib % 2)
				die(EXIT_USAGE, "--mib: %llu is not a multiple of 2", mib);
			break;
		case 'r':
			rounds = number_arg("--rounds", optarg, 1, 1000);
			break;
		case 'c':
			ctl = optarg;
			break;
		default:
			usage_exit(usage, c == 'h');
		}
	}
	if (optind != argc - 1)
		usage_exit(usage, 0);
	what = argv[optind];
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(what, "dma")) {
		vm_create(mib, 1);
		return scenario_dma();
	} else if (!strcmp(what, "fork-dma")) {
		vm_create(mib, 1);
		return scenario_fork_dma();
	} else if (!strcmp(what, "race")) {
		vm_create(mib, 2);
		return scenario_race(rounds);
	} else if (!strcmp(what, "collapse")) {
		vm_create(mib, 1);
		return scenario_collapse(ctl);
	}
	die(EXIT_USAGE, "unknown scenario '%s' (dma, fork-dma, race or collapse)", what);
}
