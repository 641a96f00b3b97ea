#!/bin/sh
# No system(), popen() or exec*() anywhere in src/: mapscope never runs a
# program, so nothing taken from an inspected process can be run through it
# (needrestart's CVE-2024-48990 class).  posix_spawn and the raw syscalls
# count too (a raw syscall(SYS_execve, ...); the reader's seccomp filter may
# name SYS_execve, to refuse it).  Comments are stripped first so prose may
# name the calls.
set -u
SRC=${srcdir:-.}/src
[ -d "$SRC" ] || { echo "no-exec: FAIL: no $SRC"; exit 1; }
files=$(find "$SRC" -name '*.[ch]' | sort)
[ -n "$files" ] || { echo "no-exec: FAIL: no sources under $SRC"; exit 1; }
pattern='(^|[^A-Za-z0-9_.>])(system|popen|execl|execlp|execle|execv|execve|execvp|execvpe|fexecve|execveat|posix_spawn|posix_spawnp|wordexp)[[:space:]]*\(|syscall[[:space:]]*\([[:space:]]*(SYS|__NR)_execve'
found=0
for f in $files; do
	# Drop /* ... */ and // comments and string literals, keep line numbers.
	hits=$(sed -e ':a' -e '/\/\*/{/\*\//!{N;ba' -e '}' -e '}' \
		-e 's:/\*.*\*/::g' -e 's://.*$::' -e 's/"\([^"\\]\|\\.\)*"/""/g' "$f" |
		grep -nE "$pattern")
	if [ -n "$hits" ]; then
		echo "no-exec: $f: $hits"
		found=1
	fi
done
n=$(echo "$files" | wc -l)
[ "$found" -eq 0 ] || { echo "no-exec: FAIL: a call that runs a program is in src/"; exit 1; }
# The check must see code: a file that does call exec is caught.
probe=$(mktemp "${TMPDIR:-/tmp}/ms-noexec.XXXXXX") || exit 1
printf 'int f(void)\n{\n\treturn execvp(p, argv);\n}\n' > "$probe"
grep -qE "$pattern" "$probe" || { rm -f "$probe"; echo "no-exec: FAIL: the pattern misses execvp"; exit 1; }
printf 'int f(void)\n{\n\treturn syscall(SYS_execve, p, argv, envp);\n}\n' > "$probe"
grep -qE "$pattern" "$probe" || { rm -f "$probe"; echo "no-exec: FAIL: the pattern misses syscall(SYS_execve"; exit 1; }
rm -f "$probe"
echo "no-exec: $n files in src/ call no system, popen or exec"
exit 0
