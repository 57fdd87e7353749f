# Simulation of the prepared two-groups-per-join ring protocol (q4_warpgroup.cuh, Q4_PAIR):
# 4 warps, warp 0's lane 0 the producer. Deadlock, a stage overwritten before all four warps
# are done with it, or a wait landing on the wrong phase -> assertion.
import random, sys
def ops_for(warp, ng, ST):
    o = []
    if warp == 0:
        for j in range(min(2, ng)): o.append(('fill', j, j % ST))
    def refill(j):
        if j >= ng: return
        if warp == 0:
            if j >= ST: o.append(('wait_empty', j % ST, ((j - ST) // ST) & 1, j - ST))
            o.append(('fill', j, j % ST))
    def pair(i, two):
        refill(i + 2); refill(i + 3)
        hs = [0, 1] if two else [0]
        for h in hs: o.append(('wait_full', (i + h) % ST, ((i + h) // ST) & 1, i + h))
        o.append(('wgmma', i))
        for h in hs: o.append(('done', i + h)); o.append(('arrive', (i + h) % ST))
    i = 0
    while i + ST <= ng:
        for u in range(0, ST, 2): pair(i + u, True)
        i += ST
    for u in range(0, ST, 2):
        if i + u + 1 < ng: pair(i + u, True)
        elif i + u < ng: pair(i + u, False)
    return o
def run(ng, ST, seed):
    rnd = random.Random(seed)
    prog = [ops_for(w, ng, ST) for w in range(4)]
    pc = [0] * 4
    full = [0] * ST; empty_arr = [0] * ST; empty = [0] * ST
    stage_group = [None] * ST; readers = {}
    while True:
        runnable = []
        for w in range(4):
            if pc[w] >= len(prog[w]): continue
            op = prog[w][pc[w]]
            if op[0] == 'wait_full':
                if (full[op[1]] & 1) == op[2]: continue
                assert full[op[1]] - 1 == op[3] // ST and stage_group[op[1]] == op[3], ('full', op)
            if op[0] == 'wait_empty':
                if (empty[op[1]] & 1) == op[2]: continue
                assert empty[op[1]] - 1 == op[3] // ST, ('empty', op)
            if op[0] == 'wgmma' and not all(pc[x] < len(prog[x]) and prog[x][pc[x]] == op for x in range(4)):
                continue
            runnable.append(w)
        if not runnable:
            if all(pc[w] >= len(prog[w]) for w in range(4)):
                assert sorted(readers) == list(range(ng)) and all(v == {0, 1, 2, 3} for v in readers.values())
                return
            raise AssertionError(('deadlock', ng, ST, [prog[w][pc[w]] if pc[w] < len(prog[w]) else None for w in range(4)]))
        w = rnd.choice(runnable); op = prog[w][pc[w]]
        if op[0] == 'wgmma':
            for x in range(4): pc[x] += 1
            continue
        if op[0] == 'fill':
            prev = stage_group[op[2]]
            if prev is not None: assert readers.get(prev, set()) == {0, 1, 2, 3}, ('overwrite', op, prev)
            stage_group[op[2]] = op[1]; full[op[2]] += 1
        elif op[0] == 'done': readers.setdefault(op[1], set()).add(w)
        elif op[0] == 'arrive':
            empty_arr[op[1]] += 1
            if empty_arr[op[1]] == 4: empty_arr[op[1]] = 0; empty[op[1]] += 1
        pc[w] += 1
for ST in (4, 8):
    for ng in range(1, 45):
        for seed in range(25): run(ng, ST, seed)
print('ok: stages 4 and 8, 1-44 groups, 25 interleavings each')
