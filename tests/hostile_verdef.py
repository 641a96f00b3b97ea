#!/usr/bin/env python3
"""Crafted ELF files for the LIBVER attack test (tests/test_libver_hostile.sh).

hostile_verdef.py KIND OUT

Each is a small ELF64 shared object made here, with a PT_LOAD over the
whole file, PT_DYNAMIC (DT_STRTAB, DT_STRSZ, DT_VERDEF, DT_VERDEFNUM,
DT_SONAME) and its version definitions (.gnu.version_d: a Verdef and one
Verdaux each, chained by vd_next), the first being the base one:

  sane      HOSTILE_1.2, HOSTILE_2.10, HOSTILE_2.9.9, HOSTILE_PRIVATE: the
            control, whose LIBVER is HOSTILE_2.10
  wrap      vd_next of the third definition is 2^32 - 28: in 32-bit
            arithmetic it points back at itself, a loop
  huge      DT_VERDEFNUM 2^32 - 1
  chain     no DT_VERDEFNUM, 100000 definitions CHAIN_1 ... CHAIN_99999:
            a reader bounded to 1024 definitions says CHAIN_1023
  auxloop   vd_cnt 65535 and a vda_next that points back in 32 bits, on
            every definition (parents are never followed): as sane
  outside   vd_aux of the second definition 2^32 - 1, far past the file
  trunc     sane cut in the middle of its definitions
"""
import struct
import sys

V = 0x10000
EHDR, PHDR, DYN, DEF = 64, 56, 16, 28
DT_STRTAB, DT_STRSZ, DT_SONAME = 5, 10, 14
DT_VERDEF, DT_VERDEFNUM, DT_NEEDED = 0x6FFFFFFC, 0x6FFFFFFD, 1


def image(names, verdefnum=None, patch=None):
    """names[0] is the base definition; patch(i, fields) may change a definition."""
    vd_off = EHDR + 2 * PHDR + 6 * DYN
    strtab = bytearray(b"\0")
    offs = []
    for n in names:
        offs.append(len(strtab))
        strtab += n.encode() + b"\0"
    str_off = vd_off + DEF * len(names)
    size = str_off + len(strtab)
    eh = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    eh += struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, EHDR, 0, 0, EHDR, PHDR, 2, 0, 0, 0)
    dyn_off = EHDR + 2 * PHDR
    ph = struct.pack("<IIQQQQQQ", 1, 5, 0, V, V, size, size, 0x1000)
    ph += struct.pack("<IIQQQQQQ", 2, 6, dyn_off, V + dyn_off, V + dyn_off, 6 * DYN, 6 * DYN, 8)
    num_tag = DT_VERDEFNUM if verdefnum is not False else DT_NEEDED
    num = len(names) if verdefnum in (None, False) else verdefnum
    dyn = struct.pack("<qQ", DT_STRTAB, V + str_off) + struct.pack("<qQ", DT_STRSZ, len(strtab))
    dyn += struct.pack("<qQ", DT_VERDEF, V + vd_off) + struct.pack("<qQ", num_tag, num)
    dyn += struct.pack("<qQ", DT_SONAME, offs[0]) + struct.pack("<qQ", 0, 0)
    defs = bytearray()
    for i, _ in enumerate(names):
        f = {"flags": 1 if i == 0 else 0, "cnt": 1, "aux": 20,
             "next": DEF if i + 1 < len(names) else 0, "vda_next": 0}
        if patch:
            patch(i, f)
        defs += struct.pack("<HHHHIII", 1, f["flags"], (i + 1) & 0x7FFF, f["cnt"], 0, f["aux"], f["next"])
        defs += struct.pack("<II", offs[i], f["vda_next"])
    out = eh + ph + dyn + bytes(defs) + bytes(strtab)
    assert len(out) == size
    return out


SANE = ["libhostile.so.1", "HOSTILE_1.2", "HOSTILE_2.10", "HOSTILE_2.9.9", "HOSTILE_PRIVATE"]


def wrap(i, f):
    if i == 2:
        f["next"] = (1 << 32) - DEF


def auxloop(i, f):
    f["cnt"] = 65535
    f["vda_next"] = (1 << 32) - 8


def outside(i, f):
    if i == 1:
        f["aux"] = (1 << 32) - 1


def main():
    kind, out = sys.argv[1], sys.argv[2]
    if kind == "sane":
        data = image(SANE)
    elif kind == "wrap":
        data = image(SANE, patch=wrap)
    elif kind == "huge":
        data = image(SANE, verdefnum=(1 << 32) - 1)
    elif kind == "chain":
        data = image(["libchain.so.1"] + ["CHAIN_%d" % i for i in range(1, 100000)], verdefnum=False)
    elif kind == "auxloop":
        data = image(SANE, patch=auxloop)
    elif kind == "outside":
        data = image(SANE, patch=outside)
    elif kind == "trunc":
        data = image(SANE)[:EHDR + 2 * PHDR + 6 * DYN + DEF + 10]
    else:
        sys.exit("hostile_verdef.py: unknown kind %s" % kind)
    with open(out, "wb") as f:
        f.write(data)


main()
