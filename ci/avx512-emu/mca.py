#!/usr/bin/env python3
"""Static estimate, not a measurement: llvm-mca's cycles per block of the
AVX-512 kernel's block loop, for each group count it was compiled with, on
AVX-512 CPU models. It was written when no AVX-512 machine was at hand;
`cargo bench --bench multi` on one measures the same (its raw-kernel table).

Reads the disassembly ci/avx512-emu/build.sh writes (target/avx512-emu/
guest.dis), finds the block loops in md5::multi::avx512::compress (the
backward branches whose body holds 64 * G vpternlogd; an inner loop over the
groups' loads is unrolled G times), and feeds each body to llvm-mca-19,
which simulates 100 iterations with loop-carried dependencies.

Usage: ci/avx512-emu/mca.py [--dis target/avx512-emu/guest.dis]
"""
import argparse
import re
import subprocess
import sys

CPUS = ["skylake-avx512", "icelake-server", "sapphirerapids", "znver4", "znver5"]


def function(dis, part):
    out, inside = [], False
    for line in open(dis):
        if line.rstrip().endswith(">:"):
            inside = part in line
            continue
        parts = line.rstrip("\n").split("\t")
        if inside and len(parts) >= 2 and parts[0].strip().endswith(":"):
            out.append((int(parts[0].strip()[:-1], 16), parts[1].strip()))
    return out


def loops(ins):
    """(start, end) index pairs of every backward branch's body."""
    at = {a: i for i, (a, _) in enumerate(ins)}
    for i, (a, text) in enumerate(ins):
        m = re.match(r"j\w+\s+([0-9a-f]+)", text)
        if m and int(m.group(1), 16) < a:
            yield at[int(m.group(1), 16)], i


def clean(text):
    # objdump's `call *0x..(%rip)  # addr <sym>` comments and symbolic jump
    # targets do not assemble; branches are dropped (the loop is the body).
    return text.split("#")[0].split("<")[0].strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dis", default="target/avx512-emu/guest.dis")
    ns = ap.parse_args()
    ins = function(ns.dis, "6avx5128compress")
    all_loops = list(loops(ins))
    bodies = {}
    for s, e in all_loops:
        tern = sum("vpternlogd" in t for _, t in ins[s:e + 1])
        if tern == 0 or tern % 64:
            continue
        g = tern // 64
        body = []
        i = s
        while i <= e:
            inner = next(((s2, e2) for s2, e2 in all_loops if s2 == i and (s2, e2) != (s, e)), None)
            if inner:
                for _ in range(g):
                    body += [t for _, t in ins[inner[0]:inner[1]]]
                i = inner[1] + 1
            else:
                body.append(ins[i][1])
                i += 1
        bodies[g] = [clean(t) for t in body if not t.startswith("j")]
    if not bodies:
        sys.exit("mca.py: no block loop found in md5::multi::avx512::compress")
    print("llvm-mca-19 estimate (static, not measured) of md5::multi::avx512 block loops")
    print("cycles per block for 16 x G lanes, and cycles per byte over all lanes:")
    print(f"{'G':>2} {'lanes':>5} {'insns':>5} {'spills':>6} " + " ".join(f"{c:>22}" for c in CPUS))
    for g in sorted(bodies):
        asm = "\n".join(bodies[g]) + "\n"
        mem = sum("(%rsp)" in t for t in bodies[g])
        row = []
        for cpu in CPUS:
            r = subprocess.run(["llvm-mca-19", "-mtriple=x86_64", f"-mcpu={cpu}",
                                "-iterations=100", "-summary-view", "--all-views=false",
                                "--summary-view"], input=asm, capture_output=True, text=True)
            m = re.search(r"Total Cycles:\s+(\d+)", r.stdout)
            if not m:
                sys.exit(f"llvm-mca-19 -mcpu={cpu}: {r.stderr.strip()[:300]}")
            cyc = int(m.group(1)) / 100
            row.append(f"{cyc:7.0f} c ({cyc / (16 * g * 64):.3f} c/B)")
        print(f"{g:>2} {16 * g:>5} {len(bodies[g]):>5} {mem:>6} " + " ".join(f"{x:>22}" for x in row))


if __name__ == "__main__":
    main()
