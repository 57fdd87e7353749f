#!/usr/bin/env python3
"""Index model of the q4 warpgroup ring with GS groups per stage (grouped-stages-prepared.diff):
runs a CTA's schedule in program order (the four warps in lockstep: the named barrier and the
wgmma join keep them so) and asserts, for every group, that its weights, scales and token
rows are in the slot it reads, that the stage's full mbarrier phase it waits for is the fill
that brought them, and that no fill overwrites a slot a group still needs. Both paths: the
bulk-copy one (sm_90a) and the per-group cp.async one. Exits non-zero on any violation; the
known-bad variants below must fail."""
import sys

def run_wg(ST, GS, ng, bad=None):
    R, LOOK = ST * GS, (ST - 1) * GS
    slot_w, slot_x = [None] * R, [None] * R          # group held by each slot
    fills = [0] * ST                                  # completed fills per stage
    fill_phase = {}                                   # group -> (stage, fill index)
    consumed = set()
    def fill(j, st):
        if j >= ng:
            return
        c = min(GS, ng - j)
        for h in range(c):
            u = st * GS + h
            for held in (slot_w[u], slot_x[u]):
                assert held is None or held in consumed, f"fill of group {j + h} over unconsumed group {held}"
            slot_w[u] = slot_x[u] = j + h
            fill_phase[j + h] = (st, fills[st])
        fills[st] += 1
    pre = LOOK - GS if bad == "short_prologue" else LOOK
    for j in range(0, pre, GS):
        fill(j, j // GS)
    for i in range(ng):
        u = i % R
        st, h = u // GS, u % GS
        if h == 0:
            st_f, k = fill_phase.get(i, (None, None))
            assert st_f == st, f"group {i}: stage {st} never filled with it"
            assert k & 1 == (i // R) & 1, f"group {i}: waits parity {(i // R) & 1}, fill {k}"
        assert slot_w[u] == i and slot_x[u] == i, f"group {i}: slot {u} holds {slot_w[u]}"
        # between the commit and the wait: the previous stage takes the next stage's worth
        if h == 0 and i + LOOK < ng:
            sf = (st + ST - 1) % ST if bad != "same_stage" else st
            consumed.update(range(i))                 # past the barrier: groups < i retired
            fill(i + LOOK, sf)
        consumed.add(i)

def run_cpasync(ST, GS, ng):
    R, LOOK = ST * GS, (ST - 1) * GS
    slot = [None] * R
    consumed = set()
    def fill(j, u):
        if j < ng:
            assert slot[u] is None or slot[u] in consumed, f"cp.async fill of group {j} over {slot[u]}"
            slot[u] = j
    for j in range(LOOK):
        fill(j, j)
    for i in range(ng):
        u = i % R
        consumed.update(range(i))                     # after __syncthreads
        fill(i + LOOK, (u + LOOK) % R)
        assert slot[u] == i, f"cp.async group {i}: slot {u} holds {slot[u]}"
        consumed.add(i)

ok = True
for ST, GS in [(4, 1), (8, 1), (3, 2)]:
    for ng in range(1, 50):
        run_wg(ST, GS, ng)
        run_cpasync(ST, GS, ng)
print("protocols pass: stages x groups 4x1, 8x1, 3x2; 1-49 groups")
for bad in ["short_prologue", "same_stage"]:
    try:
        for ng in range(1, 50):
            run_wg(3, 2, ng, bad)
        print(f"known-bad variant {bad} PASSED: the model misses it"); ok = False
    except AssertionError as e:
        print(f"known-bad variant {bad} fails as it must: {e}")
sys.exit(0 if ok else 1)
