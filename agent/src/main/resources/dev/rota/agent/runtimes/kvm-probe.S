/* The agent's KVM probe (kvm-probe.bin): a multiboot kernel that enters 64-bit long mode with paging,
   writes 128 MiB of memory, then writes 1 to QEMU's isa-debug-exit port (0xf4), so that QEMU exits with
   status 3 only if the accelerator ran all of it. A working KVM does it in milliseconds; a /dev/kvm that
   is there but does not work (nested virtualization without the features a guest needs) takes seconds,
   hangs or aborts, and the agent's deadline tells them apart. Built with binutils:
     as --32 kvm-probe.S -o p.o && ld -m elf_i386 -T kvm-probe.ld -o p.elf p.o && objcopy -O binary p.elf kvm-probe.bin */
.section .multiboot, "a"
.align 4
.long 0x1BADB002
.long 0x00010000
.long -(0x1BADB002 + 0x00010000)
.long 0x100000, 0x100000, 0, 0, 0x100020
.text
.code32
.globl _start
_start:
  cli
  /* identity-map the first 1 GiB with one 1 GiB-spanning PDPT of 2 MiB pages: PML4 at 0x200000, PDPT at 0x201000, PD at 0x202000 */
  mov $0x200000, %edi
  xor %eax, %eax
  mov $0xc00, %ecx
  rep stosl
  movl $0x201003, 0x200000
  movl $0x202003, 0x201000
  mov $0x202000, %edi
  mov $0x83, %eax
  mov $512, %ecx
1:
  mov %eax, (%edi)
  add $0x200000, %eax
  add $8, %edi
  loop 1b
  mov $0x200000, %eax
  mov %eax, %cr3
  mov %cr4, %eax
  or $0x20, %eax            /* PAE */
  mov %eax, %cr4
  mov $0xC0000080, %ecx     /* EFER */
  rdmsr
  or $0x100, %eax           /* LME */
  wrmsr
  mov %cr0, %eax
  or $0x80000001, %eax      /* PG | PE */
  mov %eax, %cr0
  lgdt gdtr
  ljmp $0x08, $long_mode
.code64
long_mode:
  /* touch 8 MiB from 4 MiB up, 16 times: work that a working accelerator does in milliseconds */
  mov $16, %r8
2:
  mov $0x400000, %rdi
  mov $0x100000, %rcx
  mov %r8, %rax
  rep stosq
  dec %r8
  jnz 2b
  mov $0x01, %al
  out %al, $0xf4
  hlt
.align 8
gdt:
  .quad 0
  .quad 0x00209A0000000000  /* 64-bit code */
  .quad 0x0000920000000000  /* data */
gdtr:
  .word gdtr - gdt - 1
  .long gdt
