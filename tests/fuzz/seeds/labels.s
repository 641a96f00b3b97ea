# Seeds of tests/fuzz/corpus/symbols: gcc -shared -nostdlib -o labels.so labels.s; gcc -c -o labels.o labels.s.
# Aliases of every binding at one address, sized symbols nested and
# overlapping (a later, stronger, lower one), labels without a size, an
# absolute symbol: the cases where libdw breaks ties.
	.text
	.globl	outer
	.type	outer, @function
outer:
	nop
	.type	inner, @function
inner:
	nop
	nop
	.size	inner, 2
	.weak	outer_weak
	.type	outer_weak, @function
	.set	outer_weak, outer
	.size	outer_weak, 8
	.local	outer_local
	.type	outer_local, @function
	.set	outer_local, outer
	.size	outer_local, 4
bare_label:
	nop
	nop
	.globl	glob_label
glob_label:
	nop
	ret
	.size	outer, 6
tail_label:
	nop
	nop
	.globl	after
	.type	after, @function
after:
	ret
	.size	after, 1
	.weak	narrow_weak
	.type	narrow_weak, @function
	.globl	wide_global
	.type	wide_global, @function
	.set	narrow_weak, wide_global + 16
	.size	narrow_weak, 16
wide_global:
	.fill	64, 1, 0x90
	.size	wide_global, 64
	.local	local_first
	.type	local_first, @function
local_first:
	.fill	8, 1, 0x90
	.size	local_first, 8
	.globl	abs_sym
	.set	abs_sym, 0x1234
	.section .note.GNU-stack,"",@progbits
