#!/usr/bin/env python3
"""Runs this crate's md5::multi, AVX-512 kernel included, in the Bochs CPU
emulator and checks every digest against Python's hashlib.

The blob (target/avx512-emu/guest.bin, from ci/avx512-emu/build.sh) holds the
public md5::multi API behind C-ABI entry points (guest/lib.rs). The
emulated CPU (bochscpu-python's Cannon Lake model: AVX-512 F, CD, BW, DQ, VL,
IFMA, VBMI) runs all of it: CPUID and XCR0 through cpufeatures, the
scheduler, padding, Lanes and the kernels. Checks:

  detect    md5::multi::backend() in the guest says "avx512" with 32 lanes (two
            groups: the emulated CPU is an Intel), 64 once told to run four
            groups as on AMD Zen 5; with XCR0 lacking the AVX-512 state it says
            "avx2" (cpufeatures reads XCR0). The checks below run four groups
            (so every group count occurs), the digest suites two as well
  suites    digest_many_into against hashlib: every length 0..=200 (forwards and
            backwards), each padding edge alone in every lane, every count
            0..=130 with random lengths (so every group count and lane occupancy
            occurs), rows of 0..=200 bytes in buckets by block count (with
            long rows queued among them),
            very unequal lengths, columns through digest_offsets_into
            (the bucket suites among them, sixteen rows a step) and
            messages with a suffix or a prefix, and Lanes with random
            chunking
  encoders  hex_into and base64_into against Python's hex and base64, slots
            at an odd address: the AVX-512BW hex and VBMI base64 encoders
  trace     no call instruction in md5::multi::avx512::compress_read; traced calls:
            the vpternlogd and vprold executed in it (or in the rows built in
            registers, kernel/avx512_rows.rs, or on ymm registers for few
            lanes, kernel/avx512_ymm.rs) per group count, none in the
            AVX2 kernel, and the last long messages gathered in one group
  negative  the same blob with one vpternlogd immediate changed must fail the
            count suite: a kernel that did not run could not make it fail

Usage: run.py [--blob target/avx512-emu/guest.bin]. Exit status 0 only if
every check passed. Needs `pip install bochscpu-python` (ci/avx512-emu/run.sh
makes a venv for it).
"""
import argparse
import base64
import ctypes
import hashlib
import mmap
import os
import random
import struct
import subprocess
import sys
import tempfile
import time


def load_bochscpu():
    """Imports bochscpu. Its 0.4.0 wheel links the C23 names glibc 2.38 gave
    strtoull and sscanf; on older glibc (Debian 12 has 2.36) a tiny shim
    library, built here with cc and loaded first, supplies them."""
    try:
        ctypes.CDLL(None).__isoc23_strtoull  # noqa: B018
    except AttributeError:
        src = r"""
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
unsigned long long __isoc23_strtoull(const char *s, char **e, int b) { return strtoull(s, e, b); }
unsigned long __isoc23_strtoul(const char *s, char **e, int b) { return strtoul(s, e, b); }
long long __isoc23_strtoll(const char *s, char **e, int b) { return strtoll(s, e, b); }
long __isoc23_strtol(const char *s, char **e, int b) { return strtol(s, e, b); }
int __isoc23_sscanf(const char *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsscanf(s, fmt, ap);
    va_end(ap);
    return n;
}
"""
        d = tempfile.mkdtemp(prefix="md5-emu-")
        with open(os.path.join(d, "shim.c"), "w") as f:
            f.write(src)
        so = os.path.join(d, "libshim.so")
        subprocess.check_call(["cc", "-shared", "-fPIC", "-O2", "-o", so, os.path.join(d, "shim.c")])
        ctypes.CDLL(so, mode=ctypes.RTLD_GLOBAL)
    import bochscpu  # noqa: E402
    import bochscpu.cpu  # noqa: F401,E402
    import bochscpu.memory  # noqa: F401,E402
    return bochscpu


bochscpu = load_bochscpu()

PAGE = 0x1000
MEM = 64 << 20           # guest memory, identity-mapped; page 0 stays unmapped
PML4, PDPT, PD, PT = 0x1000, 0x2000, 0x3000, 0x4000
RET_PAGE = 0x10000       # a page of `hlt`: every call returns here
STACK_TOP = 0x200000     # 1 MiB of stack below the blob
CODE = 0x200000          # where the blob is linked (ci/avx512-emu/link.ld)
DATA = 0x400000          # message data, bump-allocated per call
XCR0_AVX512 = 0xE7       # x87, SSE, AVX, opmask, ZMM_Hi256, Hi16_ZMM
XCR0_AVX = 0x07          # the same without the AVX-512 state


class GuestError(Exception):
    pass


class Guest:
    """One emulated x86_64 CPU in 64-bit mode at ring 0 over a host buffer,
    running the blob. bochscpu allows one Session per process: this is
    made once."""

    def __init__(self, blob):
        self.sess = bochscpu.Session()
        # Page-aligned host memory (bochscpu maps guest pages onto it).
        self.buf = mmap.mmap(-1, MEM)
        self.mem = memoryview(self.buf)
        host = ctypes.addressof(ctypes.c_char.from_buffer(self.buf))
        for gpa in range(0, MEM, PAGE):
            bochscpu.memory.page_insert(gpa, host + gpa)
        self.sess.missing_page_handler = self._missing
        # 4-level page tables: the first 2 MiB in 4 KiB pages (page 0 absent,
        # so a null pointer faults), the rest in 2 MiB pages.
        q = lambda at, v: struct.pack_into("<Q", self.buf, at, v)
        q(PML4, PDPT | 3)
        q(PDPT, PD | 3)
        q(PD, PT | 3)
        for i in range(1, 512):
            q(PT + 8 * i, i * PAGE | 3)
        for i in range(1, MEM >> 21):
            q(PD + 8 * i, i << 21 | 0x83)
        self.mem[RET_PAGE:RET_PAGE + PAGE] = b"\xf4" * PAGE
        self.load(blob)

    def _missing(self, gpa):
        self.info["reason"] = f"access outside guest memory at {gpa:#x}"
        self.sess.stop()

    def load(self, blob):
        """(Re)loads the blob, which also resets its writable data."""
        assert len(blob) <= DATA - CODE
        self.mem[CODE:DATA] = bytes(DATA - CODE)
        self.mem[CODE:CODE + len(blob)] = blob
        self.brk = DATA

    def put(self, data, align=64):
        at = -(-self.brk // align) * align
        if at + len(data) > MEM:
            raise GuestError("guest memory exhausted")
        self.mem[at:at + len(data)] = data
        self.brk = at + max(len(data), 1)
        return at

    def get(self, at, n):
        return bytes(self.mem[at:at + n])

    def call(self, rip, *args, xcr0=XCR0_AVX512, trace=None):
        """Calls the function at `rip` with System V integer arguments; returns
        rax. `trace`, a list, receives the address of every instruction."""
        st = bochscpu.State()
        st.cr0 = 0x80050033          # PG, WP, NE, ET, MP, PE
        st.cr3 = PML4
        st.cr4 = 0x406A0             # OSXSAVE, OSXMMEXCPT, OSFXSR, PGE, PAE
        st.efer = 0xD01              # NXE, LMA, LME, SCE
        st.xcr0 = xcr0
        st.mxcsr = 0x1F80
        st.fpcw = 0x037F
        st.rflags = 0x2
        cs = bochscpu.Segment()
        cs.present, cs.selector, cs.base, cs.limit, cs.attr = True, 0x08, 0, 0xFFFFFFFF, 0xA09B
        st.cs = cs
        for name in ("ds", "es", "fs", "gs", "ss"):
            s = bochscpu.Segment()
            s.present, s.selector, s.base, s.limit, s.attr = True, 0x10, 0, 0xFFFFFFFF, 0xC093
            setattr(st, name, s)
        for reg, v in zip(("rdi", "rsi", "rdx", "rcx", "r8", "r9"), args):
            setattr(st, reg, v)
        st.rsp = STACK_TOP - 8       # rsp + 8 is 16-byte aligned at entry
        struct.pack_into("<Q", self.buf, st.rsp, RET_PAGE)
        st.rip = rip

        self.info = info = {"reason": None}

        def stop(reason):
            info["reason"] = reason
            self.sess.stop()

        hook = bochscpu.Hook()
        hook.hlt = lambda sess, cpu: stop(
            "return" if RET_PAGE <= sess.cpu.rip <= RET_PAGE + PAGE else "hlt")
        hook.exception = lambda sess, cpu, vector, code: stop(
            f"exception {vector} (error code {code:#x}) near {sess.cpu.rip:#x}")
        hook.interrupt = lambda sess, cpu, vector: stop(
            "panic (int3)" if vector == 3 else f"interrupt {vector}")
        if trace is not None:
            hook.after_execution = lambda sess, cpu, insn: trace.append(sess.cpu.rip)
        self.sess.cpu.state = st
        self.sess.run([hook])
        if info["reason"] != "return":
            raise GuestError(f"guest stopped: {info['reason']}")
        return self.sess.cpu.state.rax


def syms_of(path):
    out = {}
    for line in open(path):
        name, addr = line.split()
        out[name] = int(addr, 16)
    return out


def functions(syms, part, end):
    """(start, end) of every function whose mangled name contains `part`: the
    instances of a generic function (`md5::multi::avx512::compress_read::<G, LINES>`)."""
    starts = sorted(syms.values())
    out = [(a, min([x for x in starts if x > a] + [end])) for k, a in syms.items() if part in k]
    if not out:
        raise SystemExit(f"run.py: no function matches {part!r}")
    return out


class Md5Multi:
    """The guest's entry points."""

    def __init__(self, guest, syms):
        self.g, self.syms = guest, syms

    def _msgs(self, msgs, align=1, shift=0):
        """The guest's table of `msgs`, each put `shift` bytes past a
        multiple of `align`."""
        table = b""
        for m in msgs:
            table += struct.pack("<QQ", self.g.put(bytes(shift) + m, align) + shift, len(m))
        return self.g.put(table, 8)

    def backend(self, xcr0=XCR0_AVX512):
        self.g.brk = DATA
        name = self.g.put(bytes(16))
        lanes = self.g.call(self.syms["guest_backend"], name, xcr0=xcr0)
        return self.g.get(name, 16).rstrip(b"\0").decode(), lanes

    def set_groups(self, groups):
        self.g.call(self.syms["guest_set_avx512_groups"], groups)

    def set_stagger(self, spread):
        self.g.call(self.syms["guest_set_stagger_spread"], spread)

    def set_whole_lines(self, on):
        self.g.call(self.syms["guest_set_whole_lines"], int(on))

    def digest_many(self, msgs, trace=None, align=1, shift=0):
        self.g.brk = DATA
        table = self._msgs(msgs, align, shift)
        out = self.g.put(bytes(16 * len(msgs)))
        self.g.call(self.syms["guest_digest_many"], table, len(msgs), out, trace=trace)
        return [self.g.get(out + 16 * i, 16) for i in range(len(msgs))]

    def digest_offsets(self, values, offsets):
        self.g.brk = DATA
        v = self.g.put(values, 1)
        o = self.g.put(struct.pack(f"<{len(offsets)}I", *offsets), 4)
        n = len(offsets) - 1
        out = self.g.put(bytes(16 * n))
        self.g.call(self.syms["guest_digest_offsets"], v, len(values), o, n, out)
        return [self.g.get(out + 16 * i, 16) for i in range(n)]

    def digest_views(self, rows, broken=None, buffers=2):
        """The rows as a view column over `buffers` (1 or 2) data buffers,
        taken in turn row by row (rows of 12 bytes or fewer inline);
        `broken`, a row whose view then names buffer 2, past them. The
        digests, and 0 or 1 plus the first bad row the guest named."""
        self.g.brk = DATA
        data, views = [b"\x5a" * 3, b""][:buffers], b""
        for i, r in enumerate(rows):
            view = struct.pack("<I", len(r))
            if len(r) <= 12:
                view += r + bytes(12 - len(r))
            else:
                k = i % buffers
                view += r[:4] + struct.pack("<II", 2 if i == broken else k, len(data[k]))
                data[k] += r
            views += view
        table = b"".join(struct.pack("<QQ", self.g.put(d, 1), len(d)) for d in data)
        b = self.g.put(table, 8)
        v = self.g.put(views, 16)
        out = self.g.put(bytes(16 * len(rows)))
        bad = self.g.call(self.syms["guest_digest_views"], v, len(rows), b, len(data), out)
        return [self.g.get(out + 16 * i, 16) for i in range(len(rows))], bad

    def digest_affixed(self, msgs, affix, prefix):
        self.g.brk = DATA
        table = self._msgs(msgs)
        a = self.g.put(struct.pack("<QQ", self.g.put(affix, 1), len(affix)), 8)
        out = self.g.put(bytes(16 * len(msgs)))
        self.g.call(self.syms["guest_digest_affixed"], table, len(msgs), a, int(prefix), out)
        return [self.g.get(out + 16 * i, 16) for i in range(len(msgs))]

    def encode(self, digests, base64):
        self.g.brk = DATA
        d = self.g.put(b"".join(digests))
        width = 24 if base64 else 32
        # Slots 1 byte past a line's start: the encoders store unaligned.
        out = self.g.put(bytes(width * len(digests) + 1)) + 1
        self.g.call(self.syms["guest_encode"], d, len(digests), int(base64), out)
        return [self.g.get(out + width * i, width) for i in range(len(digests))]

    def lanes(self, streams, plan, fin):
        self.g.brk = DATA
        table = self._msgs(streams)
        p = self.g.put(struct.pack(f"<{len(plan)}I", *plan), 4)
        f = self.g.put(struct.pack(f"<{len(fin)}I", *fin), 4)
        room = len(fin) // 2 + len(streams)
        out = self.g.put(bytes(16 * room))
        n = self.g.call(self.syms["guest_lanes"], table, len(streams), p, f, len(fin) // 2, out)
        return [self.g.get(out + 16 * i, 16) for i in range(n)]


FAILED = []


def check(ok, what):
    print(f"  {'ok  ' if ok else 'FAIL'} {what}")
    if not ok:
        FAILED.append(what)
    return ok


def md5(m):
    return hashlib.md5(m).digest()


def suite_inputs(rng):
    """The digest_many suites: (name, list of messages)."""
    data = rng.randbytes(200)
    suites = [
        ("every length 0..=200", [data[:n] for n in range(201)]),
        ("every length 200..=0", [data[:n] for n in range(200, -1, -1)]),
    ]
    for n in (0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129):
        suites.append((f"{2 * 64 + 1} copies of length {n}", [data[:n]] * (2 * 64 + 1)))
    # Runs of full sets of one whole-block length (src/multi/scheduler/
    # equal_sets.rs), each set's first block loaded while the set before it
    # ends: broken by a longer message in a later set, or ending narrower.
    for n in (64, 128, 192, 256):
        run = [rng.randbytes(n) for _ in range(3 * 64 + 40)]
        suites.append((f"{len(run)} messages of {n} bytes", run))
        run = run[:]
        run[2 * 64 + 37] = rng.randbytes(n + 1)
        suites.append((f"the same, message {2 * 64 + 37} of {n + 1}", run))
    for count in range(131):
        suites.append((f"count {count}", [rng.randbytes(rng.randrange(300)) for _ in range(count)]))
    # Rows straddling one padding edge: sets of one and two blocks mixed.
    for count in (64, 2 * 64 + 5):
        suites.append((f"{count} rows of 8..=64 bytes", [rng.randbytes(8 + rng.randrange(57))
                                                          for _ in range(count)]))
    # Short rows of every block count, in buckets by block count
    # (src/multi/scheduler/buckets.rs), one with a long row among them, and
    # rows of 0..=400 bytes, so many of them longer than a lane's buffer
    # that a run of buckets ends at its 128th (`LONGS`) and another starts.
    for count in (300, 2 * 1536 + 7):
        rows = [rng.randbytes(rng.randrange(201)) for _ in range(count)]
        suites.append((f"{count} rows of 0..=200 bytes", rows))
    rows = [rng.randbytes(rng.randrange(201)) for _ in range(500)]
    rows[290] = rng.randbytes(1000)
    suites.append(("500 rows of 0..=200 bytes, a long one among them", rows))
    rows = [rng.randbytes(rng.randrange(401)) for _ in range(700)]
    suites.append(("700 rows of 0..=400 bytes", rows))
    unequal = []
    for i in range(150):
        n = [20_000 + rng.randrange(5000), 0, 64 * rng.randrange(10), 65_536 + 55,
             rng.randrange(1000), rng.randrange(1000), rng.randrange(1000)][i % 7]
        unequal.append(rng.randbytes(n))
    unequal.append(rng.randbytes(100_001))
    suites.append(("150 very unequal lengths, one long last", unequal))
    suites.append(("the same reversed", unequal[::-1]))
    return suites


def run_suites(mm, suites):
    """Runs every suite; returns (messages checked, mismatches, error or None)."""
    total = bad = 0
    for name, msgs in suites:
        try:
            got = mm.digest_many(msgs)
        except GuestError as e:
            return total, bad, f"{name}: {e}"
        total += len(msgs)
        bad += sum(g != md5(m) for g, m in zip(got, msgs))
    return total, bad, None


def lanes_script(rng, count, rounds=24):
    """A random Lanes script for `count` streams and the digests it must give."""
    plan, fin, want = [], [], []
    streams = [bytearray() for _ in range(count)]
    open_ = [0] * count  # start of each stream's current message
    for r in range(rounds):
        for i in range(count):
            blocks = rng.choice([0, 1, rng.randrange(12)])
            plan.append(blocks)
            streams[i] += rng.randbytes(64 * blocks)
        if rng.randrange(3) == 0:
            lane, tail = rng.randrange(count), rng.randrange(200)
            streams[lane] += rng.randbytes(tail)
            fin += [lane, tail]
            want.append(md5(bytes(streams[lane][open_[lane]:])))
            open_[lane] = len(streams[lane])
        else:
            fin += [0xFFFFFFFF, 0]
    want += [md5(bytes(s[o:])) for s, o in zip(streams, open_)]
    return [bytes(s) for s in streams], plan, fin, want


def equal_lengths(rng):
    """Counts 2..=130 of 100-byte messages, but for 65 and 129. Equal lengths
    end together, so no message is left to finish alone on the single-stream
    backend, as the 65th of 65 would be: every one runs through the AVX-512
    kernel."""
    return [(f"count {c}, 100 bytes each", [rng.randbytes(100) for _ in range(c)])
            for c in range(2, 131) if c % 64 != 1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--blob", default="target/avx512-emu/guest.bin")
    ap.add_argument("--equal-lengths", action="store_true",
                    help="only print the backend, how many digests of equal_lengths() differ "
                    "from hashlib's, and their number (the negative control's child)")
    ns = ap.parse_args()
    syms_path = os.path.join(os.path.dirname(ns.blob), "guest.syms")
    dis_path = os.path.join(os.path.dirname(ns.blob), "guest.dis")
    blob = open(ns.blob, "rb").read()
    syms = syms_of(syms_path)
    t_start = time.perf_counter()
    guest = Guest(blob)
    mm = Md5Multi(guest, syms)
    if ns.equal_lengths:
        mm.set_groups(4)
        b, _ = mm.backend()
        total, bad, err = run_suites(mm, equal_lengths(random.Random(1)))
        print(b, bad, total if err is None else 0)
        return 0

    print("== detect: md5::multi::backend() in the guest")
    b, n = mm.backend()
    check((b, n) == ("avx512", 32), f"with XCR0 = {XCR0_AVX512:#x}: backend {b!r}, {n} lanes "
          "(two groups: the CPU is an Intel)")
    mm.set_groups(4)
    b, n = mm.backend()
    check((b, n) == ("avx512", 64), f"told to run four groups: backend {b!r}, {n} lanes")
    guest.load(blob)  # cpufeatures caches its answer in the blob's data
    b, n = mm.backend(xcr0=XCR0_AVX)
    check(b == "avx2", f"with XCR0 = {XCR0_AVX:#x} (no AVX-512 state): backend {b!r}, {n} lanes")
    guest.load(blob)

    print("== suites: md5::multi::digest_many_into against hashlib")
    rng = random.Random(0x6D35_6176_7835)
    suites = suite_inputs(rng)
    for groups in (2, 4):  # four last: the checks below run it
        mm.set_groups(groups)
        t0 = time.perf_counter()
        total, bad, err = run_suites(mm, suites)
        check(err is None, f"{16 * groups} lanes: every call returned "
              f"({err or 'no exception, no panic'})")
        check(total > 0 and bad == 0,
              f"{16 * groups} lanes: {total - bad} of {total} digests equal hashlib's, "
              f"in {len(suites)} calls ({time.perf_counter() - t0:.1f} s)")

    print("== suites: staggered lanes, equal messages a multiple of 512 B apart, against hashlib")
    for groups in (2, 4):
        mm.set_groups(groups)
        t0 = time.perf_counter()
        total = bad = 0
        err = None
        try:
            # Lanes start up to `spread - 1` blocks apart: 8-block messages
            # shorter than the stagger, 64-block ones as long as it.
            for spread in (8, 32, 64):
                mm.set_stagger(spread)
                for blocks in (8, 64):
                    for count in (2, 17, 33, 64, 70):
                        msgs = [rng.randbytes(64 * blocks) for _ in range(count)]
                        got = mm.digest_many(msgs)
                        total += count
                        bad += sum(g != md5(m) for g, m in zip(got, msgs))
            mm.set_stagger(0)
        except GuestError as e:
            err = str(e)
        check(err is None and total > 0 and bad == 0,
              f"{16 * groups} lanes: {total - bad} of {total} digests equal hashlib's "
              f"({err or 'no exception, no panic'}, {time.perf_counter() - t0:.1f} s)")

    print("== suites: equal messages 4 KiB apart inside a line, read as whole lines, against hashlib")
    mm.set_whole_lines(True)
    for groups in (2, 4):
        mm.set_groups(groups)
        t0 = time.perf_counter()
        total = bad = 0
        err = None
        try:
            # Starts at a word inside a line (whole lines) and at an odd
            # byte (block by block); one block, and more than the ring's
            # four.
            for shift in (4, 16, 60, 33):
                for blocks in (1, 3, 9):
                    for count in (17, 64):
                        msgs = [rng.randbytes(64 * blocks) for _ in range(count)]
                        got = mm.digest_many(msgs, align=4096, shift=shift)
                        total += count
                        bad += sum(g != md5(m) for g, m in zip(got, msgs))
        except GuestError as e:
            err = str(e)
        check(err is None and total > 0 and bad == 0,
              f"{16 * groups} lanes: {total - bad} of {total} digests equal hashlib's "
              f"({err or 'no exception, no panic'}, {time.perf_counter() - t0:.1f} s)")
    mm.set_whole_lines(False)

    print("== suites: digest_offsets_into, digest_views_into and the affixed forms against hashlib")
    for groups in (2, 4):
        mm.set_groups(groups)
        t0 = time.perf_counter()
        total = bad = 0
        err = None
        try:
            for rows, base in ((0, 0), (1, 5), (70, 0), (200, 17), (400, 3)):
                lens = [rng.choice([rng.randrange(201), rng.choice((55, 56, 63, 64, 119, 120)),
                                    rng.randrange(3000)]) for _ in range(rows)]
                values = rng.randbytes(base + sum(lens) + 1)
                offsets = [base]
                for n in lens:
                    offsets.append(offsets[-1] + n)
                got = mm.digest_offsets(values, offsets)
                want = [md5(values[a:b]) for a, b in zip(offsets, offsets[1:])]
                total += len(want)
                bad += sum(g != w for g, w in zip(got, want))
            # The bucket suites as columns: sixteen rows a step
            # (src/multi/scheduler/column_buckets.rs).
            for name, rows in suites:
                if "rows of 0..=" not in name:
                    continue
                values = b"\xa5" * 5 + b"".join(rows)
                offsets = [5]
                for r in rows:
                    offsets.append(offsets[-1] + len(r))
                got = mm.digest_offsets(values, offsets)
                total += len(rows)
                bad += sum(g != md5(r) for g, r in zip(got, rows))
                # The same rows as a view column (forms/views.rs), and
                # with one view broken: that row named, no panic.
                got, refused = mm.digest_views(rows)
                total += len(rows)
                bad += sum(g != md5(r) for g, r in zip(got, rows)) + (refused != 0)
                long = [i for i, r in enumerate(rows) if len(r) > 12]
                if long:
                    _, refused = mm.digest_views(rows, broken=long[len(long) // 2])
                    bad += refused != 1 + long[len(long) // 2]
                # In one buffer: sixteen views at a time
                # (src/multi/forms/views/avx512.rs).
                got, refused = mm.digest_views(rows, buffers=1)
                total += len(rows)
                bad += sum(g != md5(r) for g, r in zip(got, rows)) + (refused != 0)
            # View columns of one block count in one buffer, read sixteen
            # views at a time straight into the kernel's rows, and with one
            # view broken (each of its rows' length).
            for blocks in (1, 2, 3, 4):
                least, most = max(64 * blocks - 72, 0), 64 * blocks - 9
                rows = [rng.randbytes(rng.randrange(least, most + 1)) for _ in range(150)]
                got, refused = mm.digest_views(rows, buffers=1)
                total += len(rows)
                bad += sum(g != md5(r) for g, r in zip(got, rows)) + (refused != 0)
                long = [i for i, r in enumerate(rows) if len(r) > 12]
                _, refused = mm.digest_views(rows, broken=long[40], buffers=1)
                bad += refused != 1 + long[40]
            for affix_len in (0, 4, 63, 64, 65, 300):
                affix = rng.randbytes(affix_len)
                msgs = [rng.randbytes(rng.choice((rng.randrange(201), 4096))) for _ in range(150)]
                for prefix in (False, True):
                    got = mm.digest_affixed(msgs, affix, prefix)
                    want = [md5(affix + m if prefix else m + affix) for m in msgs]
                    total += len(want)
                    bad += sum(g != w for g, w in zip(got, want))
        except GuestError as e:
            err = str(e)
        check(err is None and total > 0 and bad == 0,
              f"{16 * groups} lanes: {total - bad} of {total} digests of columns (offsets from 0 and "
              f"above, views) and of messages with a suffix or prefix equal hashlib's "
              f"({err or 'no exception, no panic'}, {time.perf_counter() - t0:.1f} s)")

    print("== encoders: hex_into and base64_into (AVX-512BW hex, VBMI base64) against Python's")
    t0 = time.perf_counter()
    total = bad = 0
    for count in (0, 1, 3, 4, 5, 7, 8, 9, 16, 17, 31, 100):
        digests = [rng.randbytes(16) for _ in range(count)]
        try:
            hexed, b64 = mm.encode(digests, False), mm.encode(digests, True)
        except GuestError as e:
            check(False, f"encoders over {count} digests: {e}")
            continue
        total += 2 * count
        bad += sum(h != d.hex().encode() for h, d in zip(hexed, digests))
        bad += sum(b != base64.b64encode(d) for b, d in zip(b64, digests))
    check(total > 0 and bad == 0, f"{total - bad} of {total} encoded digests equal Python's "
          f"({time.perf_counter() - t0:.1f} s)")

    print("== suites: md5::multi::Lanes with random chunking against hashlib")
    t0 = time.perf_counter()
    total = bad = 0
    for count in (1, 2, 3, 8, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64):
        streams, plan, fin, want = lanes_script(rng, count)
        try:
            got = mm.lanes(streams, plan, fin)
        except GuestError as e:
            check(False, f"Lanes with {count} streams: {e}")
            continue
        total += len(want)
        bad += len(got) != len(want) or sum(g != w for g, w in zip(got, want))
    check(total > 0 and bad == 0, f"{total - bad} of {total} stream digests equal hashlib's "
          f"({time.perf_counter() - t0:.1f} s)")

    print("== trace: the AVX-512 instructions each call executes")
    # compress::<G> only picks the frame, whole lines or block by block; the
    # 64 steps are inlined into its compress_read::<G, LINES>.
    avx512 = functions(syms, "6avx51213compress_read", CODE + len(blob))
    # The rows built in registers and the equal short messages of
    # kernel/avx512_rows.rs run the same 64 steps a group and block, and so
    # do calls of few busy lanes on ymm registers (kernel/avx512_ymm.rs:
    # up to the emulated Intel's row's `ymm_lanes`, one group of 8).
    kernel = (avx512 + functions(syms, "11avx512_rows", CODE + len(blob))
              + functions(syms, "10avx512_ymm13compress_read", CODE + len(blob)))
    avx2 = functions(syms, "4avx28compress", CODE + len(blob))
    in_avx512 = lambda r: any(a <= r < e for a, e in avx512)  # noqa: E731
    in_kernel = lambda r: any(a <= r < e for a, e in kernel)  # noqa: E731
    dis = {}  # address -> (mnemonic, address of the next instruction)
    prev = None
    for line in open(dis_path):
        parts = line.split("\t")
        if len(parts) >= 2 and parts[0].strip().endswith(":"):
            try:
                at = int(parts[0].strip()[:-1], 16)
            except ValueError:
                continue
            dis[at] = [parts[1].split()[0], None]
            if prev is not None:
                dis[prev][1] = at
            prev = at
    calls = [f"{at:#x}" for at, (name, _) in dis.items() if name == "call" and in_avx512(at)]
    check(not calls, f"no call instruction in the {len(avx512)} instances of "
          f"md5::multi::avx512::compress_read {calls}")
    for count in (1, 2, 8, 16, 17, 32, 33, 48, 49, 64):
        trace = []
        msgs = [rng.randbytes(100) for _ in range(count)]
        got = mm.digest_many(msgs, trace=trace)
        ran = [dis.get(r, ["?"])[0] for r in trace if in_kernel(r)]
        tern, rol = ran.count("vpternlogd"), ran.count("vprold")
        in_avx2 = sum(a <= r < e for r in trace for a, e in avx2)
        # 100 bytes are two blocks; a lone message takes the single-stream
        # backend. Each block of each group of 16 lanes (of 8 on `ymm`, one
        # group for up to 8 messages) is 64 steps.
        groups = 0 if count == 1 else -(-count // 16)
        check(got == [md5(m) for m in msgs] and tern == rol == 2 * groups * 64 and in_avx2 == 0,
              f"{count:2} messages: {len(trace):6} instructions, {len(ran):5} in "
              f"the AVX-512 kernel, {tern:3} vpternlogd and {rol:3} vprold "
              f"(2 blocks x {groups} groups x 64 steps), {in_avx2} in the AVX2 kernel")
    # Two messages of 1000 bytes (16 blocks) in lanes 0 and 20 among 40 of
    # 100 bytes (2 blocks): three groups for 2 blocks, then the scheduler
    # gathers the two long ones into one group (on `ymm`) for the other 14.
    trace = []
    msgs = [rng.randbytes(1000 if i in (0, 20) else 100) for i in range(42)]
    got = mm.digest_many(msgs, trace=trace)
    ran = [dis.get(r, ["?"])[0] for r in trace if in_kernel(r)]
    tern = ran.count("vpternlogd")
    check(got == [md5(m) for m in msgs] and tern == (2 * 3 + 14 * 1) * 64,
          f"2 long among 40 short messages: {tern} vpternlogd (2 blocks x 3 groups, "
          f"then 14 blocks x 1 group, x 64 steps)")

    print("== negative control: every F step's vpternlogd immediate changed")
    bad_blob = bytearray(blob)
    patched = 0
    for at, (name, end) in dis.items():
        if name == "vpternlogd" and in_kernel(at) and bad_blob[end - 1 - CODE] == 0xCA:
            # objdump's `vpternlogd $0xca,...`: the immediate is the last byte.
            bad_blob[end - 1 - CODE] = 0xCB
            patched += 1
    # bochscpu keeps decoded instructions across calls and does not see a
    # host write to guest memory: the patched blob runs in a new process.
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "guest.bin")
        with open(path, "wb") as f:
            f.write(bad_blob)
        os.symlink(os.path.abspath(syms_path), os.path.join(d, "guest.syms"))
        child = subprocess.run([sys.executable, __file__, "--blob", path, "--equal-lengths"],
                               capture_output=True, text=True)
    try:
        b, bad, total = child.stdout.split()
        bad, total = int(bad), int(total)
    except ValueError:
        b, bad, total = (child.stdout + child.stderr)[-500:], 0, 0
    # 16 F steps per group in each instance of the kernel (one per group
    # count, and any copy LLVM made), at least; in the rows built in
    # registers LLVM may fold a few into other logic, so no exact count.
    check(b == "avx512" and patched >= 16 * (1 + 2 + 3 + 4)
          and total > 0 and bad == total,
          f"{patched} immediates 0xca -> 0xcb (backend {b!r}): {bad} of {total} digests "
          f"(counts 2..=130 but 65 and 129, equal lengths) now differ from hashlib's")
    total, bad, err = run_suites(mm, equal_lengths(random.Random(1)))
    check(err is None and bad == 0, f"unpatched, the same: {total - bad} of {total} right")

    print(f"== {'FAILED: ' + '; '.join(FAILED) if FAILED else 'all checks passed'} "
          f"({time.perf_counter() - t_start:.1f} s)")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
