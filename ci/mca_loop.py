"""Reads `llvm-objdump -d` output on stdin and prints the body of the loop
over blocks in md5's compress code: the instructions from the target of the
longest backward branch up to, not including, that branch. With an argument,
also writes to that file the count of the function's instructions outside the
loop: the cost of a call beyond its blocks. Used by mca.sh."""

import re
import sys

FUNC = re.compile(r"^[0-9a-f]+ <(.*)>:$")
INSN = re.compile(r"^\s*([0-9a-f]+):\s+(\S.*)$")
SYM_OFF = re.compile(r"<[^>+]*\+0x([0-9a-f]+)>")

funcs = {}
name = None
for line in sys.stdin:
    line = line.rstrip("\n")
    m = FUNC.match(line)
    if m:
        name = m.group(1)
        funcs[name] = []
        continue
    m = INSN.match(line)
    if m and name is not None:
        funcs[name].append((int(m.group(1), 16), m.group(2).strip()))


def branch_target(addr, text):
    op = text.split()[0]
    if not op.startswith(("b", "cb", "tb")):
        return None
    m = SYM_OFF.search(text)
    if m:
        return int(m.group(1), 16)
    last = text.split(",")[-1].split()[-1] if "," in text else text.split()[-1]
    if re.fullmatch(r"0x[0-9a-f]+", last):
        return int(last, 16)
    if re.fullmatch(r"-?\d+", last):  # LoongArch prints a relative offset
        return addr + int(last)
    return None


best = None
for fname, insns in funcs.items():
    if "md5_probe" not in fname and "md5::compress" not in fname:
        continue
    for addr, text in insns:
        t = branch_target(addr, text)
        if t is not None and t < addr and (best is None or addr - t > best[0]):
            best = (addr - t, fname, t, addr)

if best is None:
    sys.exit("mca_loop.py: no loop found")
_, fname, start, end = best
outside = sum(1 for addr, _ in funcs[fname] if not start <= addr <= end)
print(f"# {fname}: loop {start:#x}..{end:#x}, {outside} instructions outside", file=sys.stderr)
if len(sys.argv) > 1:
    with open(sys.argv[1], "w") as f:
        f.write(f"{outside}\n")
for addr, text in funcs[fname]:
    if start <= addr < end:
        print(re.sub(r"\s*<[^>]*>", "", text).replace("\t", " "))
