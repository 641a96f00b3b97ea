#!/usr/bin/env python3
"""Crafted shared libraries for the libdw tests (tests/test_symbols_hostile.sh).

hostile_elf.py KIND BASE OUT [ARG]

BASE is a small shared library built by the test (gcc -shared -fPIC, no -g)
that defines ms_hostile_target.  OUT is BASE with DWARF written here (one
CU covering ms_hostile_target, its line table saying hostile_lib.c line
HOSTILE_LINE, comp_dir /ms-hostile-src) and, for each KIND, something
hostile that libdw takes at its word:

  sane      nothing more: the control, whose SYMBOL and SOURCE must be named
  altlink   ARG is a path (a FIFO): DW_AT_comp_dir is DW_FORM_GNU_strp_alt
            and .gnu_debugaltlink names ARG, so dwarf_getsrclines ->
            dwarf_getalt -> find_debug_altlink open()s ARG, blocking
  sections  17 .debug_* sections SHF_COMPRESSED (Elf64_Chdr), ch_size
            256 MiB each, their data the zlib of 256 MiB of zeros (about
            260 KB each: libelf refuses a ratio over 1032), all inflated by
            dwarf_begin_elf: 4.25 GiB
  symtab    .symtab SHF_COMPRESSED, inflating to 2 GiB of zero symbols
            (elfcheck checks a symbol table's size as stored)
  lines     .debug_line SHF_COMPRESSED: one program of 32 Mi DW_LNS_copy
            (about 33 KB compressed); libdw builds 32 Mi rows
  sparse    a section of 250 MB of nothing (a hole in a sparse file) before
            the section headers; the file is 250 MB long

Nothing here needs more than a few MB of memory: the zlib streams are made
of one compressed 1 MiB block repeated (each piece ends in a full flush, so
it does not depend on what came before), with the checksum computed apart.
"""
import struct
import sys
import zlib

HOSTILE_LINE = 7
COMP_DIR = b"/ms-hostile-src"
TARGET = b"ms_hostile_target"
SHF_COMPRESSED = 0x800
SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB = 1, 2, 3
MiB = 1 << 20


def uleb(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def sleb(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        done = (v == 0 and not b & 0x40) or (v == -1 and b & 0x40)
        out.append(b if done else b | 0x80)
        if done:
            return bytes(out)


def adler_repeat(adler, chunk, count):
    """adler32 after feeding chunk count times, without doing so."""
    # adler32 of a block is linear enough to fold: a' = a + A, b' = b + n*a + B
    # (mod 65521), with A, B the sums of the block started from (0, 0).
    mod = 65521
    one = zlib.adler32(chunk, 1)
    A = ((one & 0xFFFF) - 1) % mod
    B = ((one >> 16) - len(chunk)) % mod
    a, b = adler & 0xFFFF, adler >> 16
    n = len(chunk)
    for _ in range(count):
        b = (b + n * a + B) % mod
        a = (a + A) % mod
    return (b << 16) | a


def piece(data):
    """Raw deflate blocks for data, ending byte-aligned (full flush)."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush(zlib.Z_FULL_FLUSH)


def zlib_stream(parts, pad_to=1):
    """A zlib stream of parts, each (bytes, count); its length padded with
    empty stored blocks to a multiple of pad_to.  Returns (stream, size)."""
    out = bytearray(b"\x78\xda")
    adler, size = 1, 0
    for data, count in parts:
        if not data or not count:
            continue
        p = piece(data)
        out += p * count
        adler = adler_repeat(adler, data, count)
        size += len(data) * count
    tail = b"\x03\x00" + struct.pack(">I", adler)  # the last block: empty, fixed codes
    while (len(out) + len(tail)) % pad_to:
        out += b"\x00\x00\x00\xff\xff"  # an empty stored block
    return bytes(out + tail), size


def chdr(size, align):
    return struct.pack("<IIQQ", 1, 0, size, align)  # ELFCOMPRESS_ZLIB


def zeros_section(size):
    stream, n = zlib_stream([(bytes(MiB), size // MiB)])
    assert n == size
    return chdr(size, 1) + stream


class Elf:
    def __init__(self, data):
        self.data = bytearray(data)
        assert self.data[:4] == b"\x7fELF" and self.data[4] == 2 and self.data[5] == 1
        self.shoff, = struct.unpack_from("<Q", self.data, 0x28)
        self.shnum, self.shstrndx = struct.unpack_from("<HH", self.data, 0x3C)
        self.sh = [list(struct.unpack_from("<IIQQQQIIQQ", self.data, self.shoff + 64 * i))
                   for i in range(self.shnum)]
        s = self.sh[self.shstrndx]
        self.names = bytearray(self.data[s[4]:s[4] + s[5]])

    def name(self, i):
        off = self.sh[i][0]
        return bytes(self.names[off:self.names.index(b"\0", off)]).decode()

    def index(self, name):
        for i in range(self.shnum):
            if self.name(i) == name:
                return i
        raise KeyError(name)

    def symbol(self, name):
        """(value, size) of a symbol in .symtab."""
        st = self.sh[self.index(".symtab")]
        strs = self.sh[st[6]]
        for off in range(st[4], st[4] + st[5], 24):
            n, info, other, shndx, value, size = struct.unpack_from("<IBBHQQ", self.data, off)
            s = strs[4] + n
            if bytes(self.data[s:self.data.index(b"\0", s)]) == name:
                return value, size
        raise KeyError(name)

    def add_blob(self, blob, align=8):
        while len(self.data) % align:
            self.data.append(0)
        off = len(self.data)
        self.data += blob
        return off

    def add_section(self, name, blob, flags=0, sh_type=SHT_PROGBITS, align=1):
        off = self.add_blob(blob, 8)
        self.sh.append([len(self.names), sh_type, flags, 0, off, len(blob), 0, 0, align, 0])
        self.names += name.encode() + b"\0"
        return len(self.sh) - 1

    def write(self, path, hole=0):
        """The file with a new name table and section headers at its end,
        after a hole of `hole` bytes (a section .ms_hole covers it)."""
        if hole:
            start = (len(self.data) + 7) & ~7
            self.sh.append([len(self.names), SHT_PROGBITS, 0, 0, start, hole, 0, 0, 1, 0])
            self.names += b".ms_hole\0"
        names_off = (len(self.data) + 7) & ~7
        if hole:
            names_off = (start + hole + 7) & ~7
        self.sh[self.shstrndx][4] = names_off
        self.sh[self.shstrndx][5] = len(self.names)
        shoff = (names_off + len(self.names) + 7) & ~7
        struct.pack_into("<Q", self.data, 0x28, shoff)
        struct.pack_into("<H", self.data, 0x3C, len(self.sh))
        with open(path, "wb") as f:
            f.write(self.data)
            f.seek(names_off)
            f.write(self.names)
            f.seek(shoff)
            for s in self.sh:
                f.write(struct.pack("<IIQQQQIIQQ", *s))


def dwarf(low, size, altlink):
    """(.debug_abbrev, .debug_info, .debug_aranges, line program header,
    line program body): one DWARF 4 CU over [low, low + size)."""
    DW_FORM_string, DW_FORM_addr, DW_FORM_data8 = 0x08, 0x01, 0x07
    DW_FORM_sec_offset, DW_FORM_data1, DW_FORM_GNU_strp_alt = 0x17, 0x0B, 0x1F21
    comp_dir_form = DW_FORM_GNU_strp_alt if altlink else DW_FORM_string
    abbrev = uleb(1) + uleb(0x11) + b"\x00"  # DW_TAG_compile_unit, no children
    for at, form in ((0x03, DW_FORM_string), (0x1B, comp_dir_form), (0x11, DW_FORM_addr),
                     (0x12, DW_FORM_data8), (0x10, DW_FORM_sec_offset), (0x13, DW_FORM_data1)):
        abbrev += uleb(at) + uleb(form)
    abbrev += b"\x00\x00\x00"
    die = uleb(1) + b"hostile_lib.c\0"
    # strp_alt: an offset into the alternate file's .debug_str
    die += struct.pack("<I", 0) if altlink else COMP_DIR + b"\0"
    die += struct.pack("<QQI", low, size, 0) + b"\x0c"  # DW_LANG_C99
    body = struct.pack("<HIB", 4, 0, 8) + die
    info = struct.pack("<I", len(body)) + body
    ar = struct.pack("<HIBB", 2, 0, 8, 0) + bytes(4) + struct.pack("<QQ", low, size) + bytes(16)
    aranges = struct.pack("<I", len(ar)) + ar
    return abbrev, info, aranges


def line_program(low, size, copies):
    """A DWARF 4 line program: ms_hostile_target at HOSTILE_LINE, then
    `copies` more DW_LNS_copy rows.  Returns (prefix, suffix): the program
    is prefix + b"\\x01" * copies + suffix."""
    hdr = struct.pack("<BBBbBB", 1, 1, 1, -5, 14, 13) + bytes([0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1])
    hdr += b"\x00" + b"hostile_lib.c\0" + b"\x00\x00\x00" + b"\x00"
    prog = b"\x00\x09\x02" + struct.pack("<Q", low)          # DW_LNE_set_address
    prog += b"\x03" + sleb(HOSTILE_LINE - 1) + b"\x01"         # advance_line, copy
    tail = b"\x02" + uleb(size) + b"\x00\x01\x01"              # advance_pc, end_sequence
    after_len = 2 + 4 + len(hdr) + len(prog) + copies + len(tail)
    prefix = struct.pack("<IHI", after_len, 4, len(hdr)) + hdr + prog
    return prefix, tail


def main():
    kind, base, out = sys.argv[1], sys.argv[2], sys.argv[3]
    arg = sys.argv[4] if len(sys.argv) > 4 else None
    elf = Elf(open(base, "rb").read())
    low, size = elf.symbol(TARGET)
    assert size > 0
    abbrev, info, aranges = dwarf(low, size, kind == "altlink")
    copies = 32 * MiB if kind == "lines" else 0
    prefix, tail = line_program(low, size, copies)
    bomb = set()
    if kind == "sections":
        bomb = {".debug_types", ".debug_addr", ".debug_line_str", ".debug_frame", ".debug_loc",
                ".debug_loclists", ".debug_pubnames", ".debug_str", ".debug_str_offsets",
                ".debug_macinfo", ".debug_macro", ".debug_ranges", ".debug_rnglists",
                ".gnu_debugaltlink", ".debug_abbrev", ".debug_line", ".debug_info"}
    big = 256 * MiB

    def padded(name, data):
        """data, or for a section of the bomb: data then zeros to 256 MiB, compressed."""
        if name not in bomb:
            return data, 0
        stream, n = zlib_stream([(data, 1), (bytes(MiB - len(data)), 1), (bytes(MiB), big // MiB - 1)])
        assert n == big
        return chdr(big, 1) + stream, SHF_COMPRESSED

    for name, data in ((".debug_abbrev", abbrev), (".debug_info", info), (".debug_aranges", aranges)):
        blob, flags = padded(name, data)
        elf.add_section(name, blob, flags)
    if kind == "lines":
        stream, n = zlib_stream([(prefix, 1), (b"\x01" * MiB, copies // MiB), (tail, 1)])
        elf.add_section(".debug_line", chdr(n, 1) + stream, SHF_COMPRESSED)
    else:
        blob, flags = padded(".debug_line", prefix + tail)
        elf.add_section(".debug_line", blob, flags)
    if kind == "altlink":
        # the alternate file's name, then a build ID (20 bytes) no file has
        elf.add_section(".gnu_debugaltlink", arg.encode() + b"\0" + bytes(range(1, 21)))
    for name in sorted(bomb - {".debug_abbrev", ".debug_info", ".debug_line"}):
        elf.add_section(name, zeros_section(big), SHF_COMPRESSED)
    if kind == "symtab":
        i = elf.index(".symtab")
        total = 2048 * MiB // 24 * 24
        stream, n = zlib_stream([(bytes(MiB * 3), total // (MiB * 3)),
                                 (bytes(total % (MiB * 3)), 1)], pad_to=24)
        assert n == total and (24 + len(stream)) % 24 == 0
        off = elf.add_blob(chdr(total, 8) + stream, 8)
        elf.sh[i][2] |= SHF_COMPRESSED
        elf.sh[i][4], elf.sh[i][5] = off, 24 + len(stream)
        elf.sh[i][8] = 8
    elf.write(out, hole=250 * 1000 * 1000 if kind == "sparse" else 0)


if __name__ == "__main__":
    main()
