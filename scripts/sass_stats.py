#!/usr/bin/env python3
"""Static SASS statistics of generated kernels, without a GPU.

The kernels here are mostly issue- or latency-bound (docs/perf-notes-*.md), so the number
of instructions in their hot loops predicts a change's effect before device time is spent.
For each entry point of a built variant this compiles the generated PTX with the pinned
ptxas, disassembles it (nvdisasm from a pip wheel, installed into .cuda-tools/ on first
use) and prints registers and spills, whether ptxas serialized the wgmma (its C75xx
advisory), the static instruction count, and every loop (a backward branch and the code
it jumps back over) with its size and opcode mix.

    scripts/sass_stats.py q4_linear_add__ring_c8_k8_s3_g4 [--arch sm_90] [--entry SUBSTR]
    scripts/sass_stats.py q4_linear_add__small_t_c8 --min-loop 40

Run `cargo build --release` first: the PTX comes from the newest build folder.
"""
import argparse
import collections
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# nvdisasm has no 13.0 wheel; a newer disassembler reads the 13.0 ptxas output.
NVDISASM_WHEEL = "nvidia-cuda-nvdisasm==13.2.86"


def cuda_root():
    return os.environ.get("NINFER_CUDA_ROOT", os.path.join(ROOT, ".cuda", "nvidia", "cu13"))


def nvdisasm():
    tools = os.path.join(ROOT, ".cuda-tools")
    path = os.path.join(tools, "nvidia", "cu13", "bin", "nvdisasm")
    if not os.path.exists(path):
        print(f"sass_stats: installing {NVDISASM_WHEEL} into .cuda-tools/", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        "--target", tools, NVDISASM_WHEEL], check=True)
    return path


def find_ptx(variant, arch):
    # sm_90a: the variant's architecture-specific compute_90a PTX where the family has one
    names = [variant + ".compute_90a.ptx", variant + ".ptx"] if arch == "sm_90a" else [variant + ".ptx"]
    found = []
    for name in names:
        found = glob.glob(os.path.join(ROOT, "target", "*", "build", "ninfer-runtime-*", "out", "ptx", name))
        if found:
            break
    if not found:
        sys.exit(f"sass_stats: no PTX for {variant!r} under target/*/build (run `cargo build --release`; "
                 f"names are <family>__<schedule> or <module>__default)")
    return max(found, key=os.path.getmtime)


def parse(sass):
    """{entry: [(address, predicate-stripped opcode, branch target label or None)], labels}"""
    entries, labels = collections.OrderedDict(), {}
    current, pending = None, []
    for line in sass.splitlines():
        m = re.match(r"^\.text\.(\S+):", line)
        if m:
            current = m.group(1)
            entries[current] = []
            continue
        m = re.match(r"^(\.L_x_\d+):", line)
        if m:
            pending.append(m.group(1))
            continue
        m = re.match(r"^\s+/\*([0-9a-f]+)\*/\s+(.*?);", line)
        if m and current:
            addr = int(m.group(1), 16)
            for label in pending:
                labels[(current, label)] = addr
            pending = []
            text = re.sub(r"^@!?U?P[T0-9]+\s+", "", m.group(2).strip())
            op = text.split()[0]
            target = re.search(r"`\((\.L_x_\d+)\)", text)
            entries[current].append((addr, op, target.group(1) if target else None))
    return entries, labels


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("variant", help="a built variant, e.g. q4_linear_add__ring_c8_k8_s3_g4")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--entry", help="only entry points containing this text")
    ap.add_argument("--min-loop", type=int, default=16, help="smallest loop body to list (instructions)")
    ap.add_argument("--top", type=int, default=10, help="opcodes listed per loop")
    args = ap.parse_args()

    ptx = find_ptx(args.variant, args.arch)
    ptxas = os.path.join(cuda_root(), "bin", "ptxas")
    with tempfile.TemporaryDirectory() as tmp:
        cubin = os.path.join(tmp, "k.cubin")
        res = subprocess.run([ptxas, f"-arch={args.arch}", "-v", "-o", cubin, ptx], capture_output=True, text=True)
        if res.returncode != 0:
            sys.exit(f"sass_stats: ptxas failed on {ptx}:\n{res.stderr}")
        sass = subprocess.run([nvdisasm(), "-c", cubin], capture_output=True, text=True, check=True).stdout
    resources, name = {}, None
    for line in res.stderr.splitlines():
        m = re.search(r"Compiling entry function '(\S+)'", line)
        if m:
            name = m.group(1)
        m = re.search(r"Used (\d+) registers", line)
        if m and name:
            resources.setdefault(name, {})["regs"] = int(m.group(1))
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and name:
            resources.setdefault(name, {})["spills"] = (int(m.group(1)), int(m.group(2)))
        # printed before the entry's own lines, naming it in quotes
        m = re.search(r"\((C\d+)\) Potential Performance Loss: (wgmma.*'(\S+)')", line)
        if m:
            resources.setdefault(m.group(3), {})["advisory"] = f"{m.group(1)}: {m.group(2)}"

    entries, labels = parse(sass)
    print(f"{args.variant} ({args.arch}; {os.path.relpath(ptx, ROOT)})")
    for entry, code in entries.items():
        if args.entry and args.entry not in entry:
            continue
        r = resources.get(entry, {})
        spills = r.get("spills", (0, 0))
        print(f"\n{entry}: {r.get('regs', '?')} registers, spills {spills[0]}/{spills[1]} bytes, "
              f"{len(code)} instructions")
        if "advisory" in r:
            print(f"  ptxas serialized the wgmma: {r['advisory']}")
        index = {addr: i for i, (addr, _, _) in enumerate(code)}
        for i, (addr, op, target) in enumerate(code):
            if not op.startswith("BRA") or target is None:
                continue
            start = labels.get((entry, target))
            if start is None or start >= addr:
                continue
            body = code[index[start]:i + 1]
            if len(body) < args.min_loop:
                continue
            mix = collections.Counter(o.split(".")[0] for _, o, _ in body)
            top = ", ".join(f"{o} {n}" for o, n in mix.most_common(args.top))
            print(f"  loop {start:#06x}-{addr:#06x}: {len(body)} instructions ({top})")


if __name__ == "__main__":
    main()
