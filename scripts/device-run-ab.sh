#!/usr/bin/env bash
# A/B timing of two builds in one GPU call: `ninfer bench` of the same keys with binary A
# (before) and binary B (after), interleaved A B A B so that drift between the runs shows
# as the spread within each side, then the per-point table of medians. The profile file is
# a fresh one (device-common.sh), so each binary runs its built-in entry, or calibrates at
# start when its route catalog has none: when the two catalogs differ, pass
# BENCH_ARGS="--device-profile off" to time both on their compiled routes.
# Usage on the GPU machine:
#   OUT=/dir A=/dir/with/old/ninfer B=/dir/with/new/ninfer [WIDTHS=8192,65536] [ROUNDS=3] \
#     [BENCH_ARGS="--device-profile off"] [A_ENV="NINFER_PDL=0"] [B_ENV=...] \
#     scripts/device-run-ab.sh KEY_PREFIX...
# ROUNDS: interleaved A B rounds (default 2; the tables of docs/results/h200-2026-12-04b
# took 3).
# A_ENV / B_ENV: environment assignments for one side only (A = B = one binary, two settings;
# build their paths from a variable other than OUT: OUT=x A_ENV="...$OUT/..." on one command
# line expands the new OUT);
# a NINFER_DEVICE_PROFILES among them must name an existing file. The table names each
# side's routed schedule per point, so two sides on the same route show as such.
LOG_NAME=summary-ab.txt
BIN=${B:?B: folder of the new binaries}
source "$(dirname "$0")/device-common.sh"
A=${A:?A: folder of the old binaries}
# A profile file named for one side must exist: a missing one is no error to the engine
# (it runs the built-in entry), so the A/B would compare other routes than meant.
for side_env in "${A_ENV:-}" "${B_ENV:-}"; do
  for assignment in $side_env; do
    case "$assignment" in
      NINFER_DEVICE_PROFILES=*)
        [ -f "${assignment#*=}" ] || { say "device-run-ab: no profile file ${assignment#*=} ($assignment)"; exit 2; } ;;
    esac
  done
done
bench_side() { # SIDE ROUND DIR
  local side_env=${A_ENV:-}
  [ "$1" = B ] && side_env=${B_ENV:-}
  for key in "${KEYS[@]}"; do
    env $side_env "$3/ninfer" bench --only "$key" ${WIDTHS:+--widths "$WIDTHS"} ${BENCH_ARGS:-} --json 2>/dev/null > "$work/bench-$1-$2-${key//\//_}.json" || say "bench $1 $key failed"
  done
}
KEYS=("$@")
ab_rounds bench_side
python3 - "$work" "$@" <<'EOF' | tee -a "$log"
import json, sys, glob, statistics, os
work, keys = sys.argv[1], sys.argv[2:]
def points(path):
    d = json.load(open(path))
    rows = d["results"] if isinstance(d, dict) and "results" in d else d
    return {(r["key"], r["width"]): (r["us"], r.get("schedule", "?")) for r in rows}
# the routed schedule of each side (its first run's): "=" where B runs A's
print(f"{'key':34} {'T':>7} {'A µs (runs)':>22} {'B µs (runs)':>22} {'B/A':>6}  schedule A -> B")
for key in keys:
    k = key.replace("/", "_")
    side, sched = {}, {}
    for s in "AB":
        runs = [points(p) for p in sorted(glob.glob(os.path.join(work, f"bench-{s}-*-{k}.json")))]
        side[s] = {pt: [r[pt][0] for r in runs if pt in r] for pt in (runs[0] if runs else {})}
        sched[s] = {pt: v[1] for pt, v in (runs[0] if runs else {}).items()}
    for pt in sorted(side["A"], key=lambda p: (p[0], p[1])):
        a, b = side["A"][pt], side["B"].get(pt, [])
        if not b:
            continue
        ma, mb = statistics.median(a), statistics.median(b)
        fa = "/".join(f"{x:.2f}" for x in a)
        fb = "/".join(f"{x:.2f}" for x in b)
        sa, sb = sched["A"][pt], sched["B"][pt]
        print(f"{pt[0]:34} {pt[1]:>7} {fa:>22} {fb:>22} {mb / ma:6.3f}  {sa} -> {'=' if sb == sa else sb}")
EOF
