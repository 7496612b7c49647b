/* SPDX-License-Identifier: GPL-2.0 */
/*
 * migfw: a 64 KiB "BIOS" for the nested guest of bench workload 5 (live
 * migration). No OS: from the reset vector straight to 32-bit protected
 * mode (flat, paging off, interrupts off), then a loop on the first serial
 * port (COM1, polled):
 *
 *   prints 'R' once, when it is ready
 *   reads  'W': writes one byte (the pass number) per 4 KiB of RAM from
 *               1 MiB to the touch limit (the end of RAM below 4 GiB, or
 *               after 'T' a tenth of it), then prints 'D'
 *   reads  'V': checks that the first byte of every 4 KiB page from 1 MiB
 *               to the touch limit holds the last pass number and from
 *               there to the end is 0; prints 'K' or 'X'
 *   reads  'T': from now on W and V touch only the first tenth of the RAM
 *               above 1 MiB; prints 'D'
 *   reads  'F': writes every byte of RAM above 1 MiB (memtester-like),
 *               then prints 'D'
 *
 * The end of RAM comes from the CMOS (0x34/0x35: RAM above 16 MiB in
 * 64 KiB units, as QEMU's pc machine sets it).
 */
	.code16
	.section .text
	.globl _start
_start:
	cli
	cld
	/* CS base is 0xffff0000 until the far jump below; the image is also
	 * aliased at 0xf0000 (the last 64 KiB below 1 MiB) */
	ljmp	$0xf000, $real
real:
	mov	%cs, %ax
	mov	%ax, %ds
	lgdtl	gdt_desc
	mov	%cr0, %eax
	or	$1, %eax
	mov	%eax, %cr0
	ljmpl	$0x08, $(0xf0000 + pm)

	.code32
pm:
	mov	$0x10, %ax
	mov	%ax, %ds
	mov	%ax, %es
	mov	%ax, %ss
	mov	$0x90000, %esp		/* a stack in low RAM, below the writes */
	/* end of RAM: 16 MiB + CMOS[0x35:0x34] * 64 KiB */
	mov	$0x34, %al
	out	%al, $0x70
	in	$0x71, %al
	movzbl	%al, %ebx
	mov	$0x35, %al
	out	%al, $0x70
	in	$0x71, %al
	movzbl	%al, %eax
	shl	$8, %eax
	or	%eax, %ebx
	shl	$16, %ebx
	add	$0x1000000, %ebx	/* %ebx = end of RAM */
	mov	%ebx, %esi		/* %esi = the touch limit */
	xor	%ebp, %ebp		/* %ebp = pass number */
	mov	$'R', %al
	call	putc
cmd:
	call	getc
	cmp	$'W', %al
	je	do_write
	cmp	$'V', %al
	je	do_verify
	cmp	$'F', %al
	je	do_fill
	cmp	$'T', %al
	je	do_tenth
	jmp	cmd

do_tenth:
	mov	%ebx, %eax
	sub	$0x100000, %eax
	xor	%edx, %edx
	mov	$10, %ecx
	div	%ecx
	and	$0xfffff000, %eax
	add	$0x100000, %eax
	mov	%eax, %esi
	mov	$'D', %al
	call	putc
	jmp	cmd

do_write:
	inc	%ebp
	mov	%ebp, %eax
	or	$1, %al			/* never 0 */
	mov	%al, %ah
	mov	$0x100000, %edi
1:	mov	%ah, (%edi)
	add	$4096, %edi
	cmp	%esi, %edi
	jb	1b
	mov	$'D', %al
	call	putc
	jmp	cmd

do_verify:
	mov	%ebp, %eax
	or	$1, %al
	mov	%al, %ah
	mov	$0x100000, %edi
1:	cmp	%ah, (%edi)
	jne	2f
	add	$4096, %edi
	cmp	%esi, %edi
	jb	1b
	jmp	4f
3:	cmpb	$0, (%edi)
	jne	2f
	add	$4096, %edi
4:	cmp	%ebx, %edi
	jb	3b
	mov	$'K', %al
	call	putc
	jmp	cmd
2:	mov	$'X', %al
	call	putc
	jmp	cmd

do_fill:
	inc	%ebp
	mov	%ebp, %eax
	or	$1, %al
	mov	%al, %ah
	mov	%ax, %dx
	shl	$16, %eax
	mov	%dx, %ax		/* the pass byte, 4 times */
	mov	$0x100000, %edi
	mov	%ebx, %ecx
	sub	%edi, %ecx
	shr	$2, %ecx
	rep stosl
	mov	$'D', %al
	call	putc
	jmp	cmd

/* COM1, polled: putc sends %al, getc returns the next byte in %al */
putc:
	mov	%al, %ah
1:	mov	$0x3fd, %dx
	in	%dx, %al
	test	$0x20, %al
	jz	1b
	mov	$0x3f8, %dx
	mov	%ah, %al
	out	%al, %dx
	ret
getc:
	mov	$0x3fd, %dx
1:	in	%dx, %al
	test	$0x01, %al
	jz	1b
	mov	$0x3f8, %dx
	in	%dx, %al
	ret

	/* The descriptors have their accessed bit set (types 0x9b, 0x93): a
	 * segment load would otherwise make the CPU set it, writing into this
	 * image, which is ROM; under KVM that write faults again for ever
	 * (TCG does not write the bit). */
	.balign 8
gdt:
	.quad	0
	.quad	0x00cf9b000000ffff	/* 0x08: code, flat 4 GiB, accessed */
	.quad	0x00cf93000000ffff	/* 0x10: data, flat 4 GiB, accessed */
gdt_desc:
	.word	gdt_desc - gdt - 1
	.long	0xf0000 + gdt

	.section .reset, "ax"
	.code16
reset:
	ljmp	$0xf000, $_start
	.fill	11, 1, 0		/* up to 64 KiB exactly */
