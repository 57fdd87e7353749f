# Simulation of q4_warpgroup.cuh's sm_90a ring protocol (pipelined): 4 warps, warp 0's
# lane 0 is the producer. Deadlock or stage overwrite -> assertion.
import itertools, random, sys
def ops_for(warp, ng, ST, U):
    o = []
    PRE = ST; LOOK = ST - 1
    if warp == 0:
        for j in range(min(PRE, ng)): o.append(('fill', j, j % ST))
    def issue(i, s):
        o.append(('wait_full', s, (i // ST) & 1, i)); o.append(('wgmma', i))
    def retire(i, s):  # retires group i-1 (stage s)
        o.append(('done', i - 1)); o.append(('arrive', s))
        if warp == 0 and i + LOOK < ng:
            o.append(('wait_empty', s, ((i - 1) // ST) & 1, i - 1))
        if warp == 0 and i + LOOK < ng:
            o.append(('fill', i + LOOK, s))
    def step(i, s):
        issue(i, s); retire(i, (s + ST - 1) % ST)
    i = 0
    while i + U <= ng:
        issue(i, 0)
        for u in range(1, U): step(i + u, u % ST)
        retire(i + U, (U - 1) % ST)
        i += U
    if i < ng:
        issue(i, 0)
        for u in range(1, U - 1):
            if i + u < ng: step(i + u, u % ST)
        o.append(('done', ng - 1))
    return o
def run(ng, ST, U, seed):
    rnd = random.Random(seed)
    prog = [ops_for(w, ng, ST, U) for w in range(4)]
    pc = [0] * 4
    full = [0] * ST; empty_arr = [0] * ST; empty = [0] * ST
    stage_group = [None] * ST; readers = {}  # group -> warps that finished it
    filled = set(); wg_arrived = {}
    while True:
        runnable = []
        for w in range(4):
            if pc[w] >= len(prog[w]): continue
            op = prog[w][pc[w]]
            if op[0] == 'wait_full':
                if (full[op[1]] & 1) == op[2]: continue
                assert full[op[1]] - 1 == op[3] // ST, ('aliased full', op)
                assert stage_group[op[1]] == op[3], ('wrong group', op, stage_group)
            if op[0] == 'wait_empty':
                if (empty[op[1]] & 1) == op[2]: continue
                assert empty[op[1]] - 1 == op[3] // ST
            if op[0] == 'wgmma':
                wg_arrived.setdefault(op[1], set()).add(w)
                if len(wg_arrived[op[1]]) < 4: 
                    # a warp waits at the collective until all 4 arrive
                    if all(pc[x] < len(prog[x]) and prog[x][pc[x]] == op for x in range(4)):
                        pass
                    else:
                        continue
            runnable.append(w)
        if not runnable:
            if all(pc[w] >= len(prog[w]) for w in range(4)): return True
            raise AssertionError(('deadlock', ng, ST, U, [prog[w][pc[w]] if pc[w] < len(prog[w]) else None for w in range(4)]))
        w = rnd.choice(runnable); op = prog[w][pc[w]]
        if op[0] == 'wgmma':
            for x in range(4): pc[x] += 1
            continue
        if op[0] == 'fill':
            g, s = op[1], op[2]
            prev = stage_group[s]
            if prev is not None:
                assert readers.get(prev, set()) == {0, 1, 2, 3}, ('overwrite before read', g, prev)
            stage_group[s] = g; full[s] += 1
        elif op[0] == 'done':
            readers.setdefault(op[1], set()).add(w)
        elif op[0] == 'arrive':
            empty_arr[op[1]] += 1
            if empty_arr[op[1]] == 4: empty_arr[op[1]] = 0; empty[op[1]] += 1
        pc[w] += 1
for ST, U in [(4, 4), (8, 8), (4, 8)]:
    for ng in range(1, 40):
        for seed in range(20): run(ng, ST, U, seed)
print('ok')
