#!/usr/bin/env python3
"""Compare `mapscope at`'s SYMBOL and SOURCE with eu-addr2line and GNU addr2line.

symbols_ref.py MAPSCOPE PID COUNT SEED: sample COUNT addresses from the
executable file mappings of PID (uniformly over their bytes), then
  - eu-addr2line --pid PID -a -S must give, for every address, the same
    symbol (name+0xoff, or none) and the same file:line as mapscope;
  - addr2line -a -f -i -e FILE VADDR must name the same function as the
    outermost frame, wherever it knows one (it reads .symtab and DWARF,
    never .dynsym), or one of its aliases (another name at the same
    address), after dropping a GCC clone suffix (.isra.0, .cold...).
Exits 0 when all agree and enough were compared, 1 otherwise.
"""
import collections
import random
import re
import subprocess
import sys

mapscope, pid, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])

maps = []
for line in open(f"/proc/{pid}/maps"):
    f = line.split(None, 5)
    rng, perms, off = f[0], f[1], int(f[2], 16)
    name = f[5].rstrip("\n") if len(f) > 5 else ""
    lo, hi = (int(x, 16) for x in rng.split("-"))
    maps.append((lo, hi, perms, off, name))
execs = [m for m in maps if "x" in m[2] and m[4].startswith("/")]
if not execs:
    print("no executable file mappings"); sys.exit(1)
rnd = random.Random(seed)
total = sum(hi - lo for lo, hi, *_ in execs)
addrs = []
for _ in range(count):
    k = rnd.randrange(total)
    for lo, hi, *_ in execs:
        if k < hi - lo:
            addrs.append(lo + k); break
        k -= hi - lo

def norm_sym(s):
    s = s.strip()
    # "??", or "()+0x..." where no symbol covers it: only a section offset.
    if s in ("", "??") or s.startswith("("):
        return None
    return s if "+0x" in s else s + "+0x0"

def norm_src(s):
    s = s.strip()
    if s.startswith("??"):
        return None
    m = re.match(r"^(.*?):(\d+)(?::\d+)?$", s)
    return f"{m.group(1)}:{m.group(2)}" if m and m.group(2) != "0" else None

ours = subprocess.run([mapscope, "at", str(pid), "-J", "-o", "ADDR,SYMBOL,SOURCE,NAME"],
                      input="".join(f"{a:x}\n" for a in addrs), capture_output=True, text=True)
if ours.returncode != 0:
    print("mapscope failed:", ours.stderr[:2000]); sys.exit(1)
import json
rows = json.loads(ours.stdout)["mappings"]
if len(rows) != len(addrs):
    print(f"mapscope gave {len(rows)} rows for {len(addrs)} addresses"); sys.exit(1)

eu = subprocess.run(["eu-addr2line", "--pid", str(pid), "-a", "-S"] + [hex(a) for a in addrs],
                    capture_output=True, text=True)
groups = []
for line in eu.stdout.splitlines():
    if re.match(r"^0x[0-9a-f]+$", line):
        groups.append([int(line, 16)])
    else:
        groups[-1].append(line)
if len(groups) != len(addrs):
    print(f"eu-addr2line gave {len(groups)} answers for {len(addrs)}"); sys.exit(1)

bad = 0
named = 0
for a, row, g in zip(addrs, rows, groups):
    want_sym = norm_sym(g[1]) if len(g) > 1 else None
    want_src = norm_src(g[-1]) if len(g) > 2 else None
    if int(row["addr"], 16) != a or g[0] != a:
        print(f"{a:#x}: rows out of order"); sys.exit(1)
    named += row["symbol"] is not None
    if row["symbol"] != want_sym or row["source"] != want_src:
        bad += 1
        if bad <= 10:
            print(f"{a:#x} {row['name']}: mapscope {row['symbol']} {row['source']}, "
                  f"eu-addr2line {want_sym} {want_src}")
print(f"eu-addr2line: {len(addrs) - bad}/{len(addrs)} agree ({named} named)")

# GNU addr2line wants the address as the file's own (virtual) address.
def vaddr_of(a):
    for lo, hi, perms, off, name in maps:
        if lo <= a < hi:
            starts = [l for l, h, p, o, n in maps if n == name and o == 0]
            if not starts:
                return None, None
            base = min(starts)
            with open(f"/proc/{pid}/root{name}", "rb") as f:
                etype = int.from_bytes(f.read(18)[16:18], "little")
            return name, a - (0 if etype == 2 else base)
    return None, None

byfile = collections.defaultdict(list)
for a, row in zip(addrs, rows):
    name, va = vaddr_of(a)
    if name:
        byfile[name].append((a, va, row))
def aliases(path):
    """Address -> every symbol name there, from .symtab and .dynsym of the
    file and of its debug file by build ID: addr2line may name any alias."""
    files = [path]
    note = subprocess.run(["readelf", "-n", path], capture_output=True, text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", note)
    if m:
        files.append(f"/usr/lib/debug/.build-id/{m.group(1)[:2]}/{m.group(1)[2:]}.debug")
    names = collections.defaultdict(set)
    for f in files:
        for opt in ([], ["-D"]):
            out = subprocess.run(["nm", "--defined-only"] + opt + [f], capture_output=True,
                                 text=True).stdout
            for line in out.splitlines():
                parts = line.split()
                if len(parts) == 3:
                    names[int(parts[0], 16)].add(parts[2].split("@")[0])
    return names

def clone_base(n):
    """A function's name without the suffixes of GCC's clones (.part.0, .isra.1)."""
    return re.sub(r"\.(isra|constprop|part|cold|lto_priv)(\.\d+)*", "", n)

def plain_name(n):
    """A C++ function's unqualified name: where DWARF has no linkage name,
    addr2line names it by DW_AT_name (PrintAccumulatedStats for
    _ZN6__asanL21PrintAccumulatedStatsEv)."""
    if not n.startswith("_Z"):
        return None
    dem = subprocess.run(["c++filt", clone_base(n)], capture_output=True, text=True).stdout.strip()
    dem = re.sub(r"( const| volatile|&|&&)+$", "", dem)
    # Drop the parameter list: the bracket that closes the name's last one.
    if dem.endswith(")"):
        depth = 0
        for i in range(len(dem) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(dem[i], 0)
            if depth == 0:
                dem = dem[:i]
                break
    # The last component outside any bracket: "operator()" of a lambda too.
    depth, last = 0, 0
    for i, c in enumerate(dem):
        depth += {"(": 1, "<": 1, "{": 1, ")": -1, ">": -1, "}": -1}.get(c, 0)
        if depth == 0 and dem.startswith("::", i):
            last = i + 2
    return no_templates(clone_base(dem[last:]))

def no_templates(n):
    """A name without template arguments, and without a template function's
    return type before it (c++filt writes "int f<int>(...)")."""
    out, depth = [], 0
    for c in n:
        if c == "<" and not n.startswith("operator"):
            depth += 1
        elif c == ">" and depth:
            depth -= 1
        elif not depth:
            out.append(c)
    return "".join(out).split(" ")[-1]

gnu_bad = compared = 0
for name, items in byfile.items():
    alias = aliases(f"/proc/{pid}/root{name}")
    out = subprocess.run(["addr2line", "-a", "-f", "-i", "-e", f"/proc/{pid}/root{name}"] +
                         [hex(va) for _, va, _ in items], capture_output=True, text=True).stdout
    answers = []
    for line in out.splitlines():
        if re.match(r"^0x[0-9a-f]+$", line):
            answers.append([])
        else:
            answers[-1].append(line)
    for (a, va, row), ans in zip(items, answers):
        funcs = ans[0::2]
        outer = funcs[-1] if funcs else "??"
        # Past a symbol's size (padding) addr2line names the symbol before;
        # mapscope leaves it null, as eu-addr2line does (checked above).
        if outer == "??" or row["symbol"] is None:
            continue
        compared += 1
        sym = row["symbol"] or "+0x0"
        ours_name, off = sym.rsplit("+0x", 1)
        ours_name = ours_name.split("@")[0]
        start_va = va - int(off, 16)
        same = {clone_base(n) for n in alias.get(start_va, set()) | {ours_name}}
        if clone_base(outer) not in same and no_templates(clone_base(outer)) != plain_name(ours_name):
            gnu_bad += 1
            if gnu_bad <= 10:
                print(f"{a:#x} {name}: mapscope {row['symbol']}, addr2line {outer}")
print(f"addr2line: {compared - gnu_bad}/{compared} agree")
if bad or gnu_bad or named < count // 10 or compared < count // 10:
    print("FAIL"); sys.exit(1)
