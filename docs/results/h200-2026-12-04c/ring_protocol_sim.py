#!/usr/bin/env python3
"""Models of q4_warpgroup.cuh's sm_90a ring protocols tried in the twentieth session.

Four warps; warp 0's lane 0 also issues the copies. Each protocol is a per-warp list of
operations generated the way the kernel's loops issue them; `run` interleaves the warps at
random and asserts: no deadlock, no stage overwritten before all four warps are done with
it, every mbarrier wait landing on the phase of the group it expects, every group read by
all four warps.

- pipelined (calls 1-2, pipelined-wg-call2.diff): group i's wgmma issued before group i - 1
  is retired, rounds of 4 groups; PRE stages filled ahead (call 1 had stages - 1: deadlock).
- pair (two-groups-per-join-prepared.diff, never run on the GPU): two groups per join,
  two groups filled ahead, groups i + 2 and i + 3 copied at pair (i, i + 1).

Running it checks both protocols as built and that the known-bad variants fail.
"""
import random


def pipelined(warp, ng, ST, pre=None, U=4):
    pre = ST if pre is None else pre
    LOOK = ST - 1
    o = []
    if warp == 0:
        o += [('fill', j, j % ST) for j in range(min(pre, ng))]

    def issue(i, s):
        o.append(('wait_full', s, (i // ST) & 1, i))
        o.append(('wgmma', i))

    def retire(i, s):  # group i - 1, stage s; refills it with group i + LOOK
        o.append(('done', i - 1))
        o.append(('arrive', s))
        if warp == 0 and i + LOOK < ng:
            o.append(('wait_empty', s, ((i - 1) // ST) & 1, i - 1))
            o.append(('fill', i + LOOK, s))

    i = 0
    while i + U <= ng:
        issue(i, 0)
        for u in range(1, U):
            issue(i + u, u % ST)
            retire(i + u, (u - 1) % ST)
        retire(i + U, (U - 1) % ST)
        i += U
    if i < ng:
        issue(i, 0)
        for u in range(1, U - 1):
            if i + u < ng:
                issue(i + u, u % ST)
                retire(i + u, (u - 1) % ST)
        o.append(('done', ng - 1))
    return o


def pair(warp, ng, ST, pre=2, ahead=2):
    o = []
    if warp == 0:
        o += [('fill', j, j % ST) for j in range(min(pre, ng))]

    def refill(j):
        if j < ng and warp == 0:
            if j >= ST:
                o.append(('wait_empty', j % ST, ((j - ST) // ST) & 1, j - ST))
            o.append(('fill', j, j % ST))

    def step(i, two):
        refill(i + ahead)
        refill(i + ahead + 1)
        hs = [0, 1] if two else [0]
        for h in hs:
            o.append(('wait_full', (i + h) % ST, ((i + h) // ST) & 1, i + h))
        o.append(('wgmma', i))
        for h in hs:
            o.append(('done', i + h))
            o.append(('arrive', (i + h) % ST))

    i = 0
    while i + ST <= ng:
        for u in range(0, ST, 2):
            step(i + u, True)
        i += ST
    for u in range(0, ST, 2):
        if i + u + 1 < ng:
            step(i + u, True)
        elif i + u < ng:
            step(i + u, False)
    return o


def run(protocol, ng, ST, seed, **kw):
    rnd = random.Random(seed)
    prog = [protocol(w, ng, ST, **kw) for w in range(4)]
    pc = [0] * 4
    full = [0] * ST
    empty = [0] * ST
    arrivals = [0] * ST
    stage_group = [None] * ST
    readers = {}
    while True:
        runnable = []
        for w in range(4):
            if pc[w] >= len(prog[w]):
                continue
            op = prog[w][pc[w]]
            if op[0] == 'wait_full':
                if (full[op[1]] & 1) == op[2]:
                    continue
                assert full[op[1]] - 1 == op[3] // ST, ('full: aliased phase', op)
                assert stage_group[op[1]] == op[3], ('full: wrong group', op, stage_group)
            if op[0] == 'wait_empty':
                if (empty[op[1]] & 1) == op[2]:
                    continue
                assert empty[op[1]] - 1 == op[3] // ST, ('empty: aliased phase', op)
            # wgmma is collective: all four warps issue it together
            if op[0] == 'wgmma' and not all(pc[x] < len(prog[x]) and prog[x][pc[x]] == op for x in range(4)):
                continue
            runnable.append(w)
        if not runnable:
            if all(pc[w] >= len(prog[w]) for w in range(4)):
                assert sorted(readers) == list(range(ng)), ('groups never read', ng, sorted(readers))
                assert all(v == {0, 1, 2, 3} for v in readers.values()), 'a group missed a warp'
                return
            raise AssertionError(('deadlock', ng, ST, [prog[w][pc[w]] if pc[w] < len(prog[w]) else None for w in range(4)]))
        w = rnd.choice(runnable)
        op = prog[w][pc[w]]
        if op[0] == 'wgmma':
            for x in range(4):
                pc[x] += 1
            continue
        if op[0] == 'fill':
            prev = stage_group[op[2]]
            if prev is not None:
                assert readers.get(prev, set()) == {0, 1, 2, 3}, ('overwrite before read', op, prev)
            stage_group[op[2]] = op[1]
            full[op[2]] += 1
        elif op[0] == 'done':
            readers.setdefault(op[1], set()).add(w)
        elif op[0] == 'arrive':
            arrivals[op[1]] += 1
            if arrivals[op[1]] == 4:
                arrivals[op[1]] = 0
                empty[op[1]] += 1
        pc[w] += 1


def passes(protocol, ST, groups, seeds, **kw):
    try:
        for ng in groups:
            for seed in range(seeds):
                run(protocol, ng, ST, seed, **kw)
        return True
    except AssertionError as e:
        print(f'  {protocol.__name__} stages={ST} {kw}: {str(e)[:110]}')
        return False


if __name__ == '__main__':
    ok = all([
        passes(pipelined, 4, range(1, 40), 20),
        passes(pipelined, 8, range(1, 40), 20, U=8),
        passes(pair, 4, range(1, 45), 25),
        passes(pair, 8, range(1, 45), 25),
    ])
    print('protocols as built:', 'pass' if ok else 'FAIL')
    print('known-bad variants (each must fail):')
    bad = [
        passes(pipelined, 4, range(1, 40), 5, pre=3),  # call 1's prologue
        passes(pair, 4, range(1, 45), 5, pre=1),       # a prologue one group short
        passes(pair, 4, range(1, 45), 5, ahead=3),     # refills one group late
    ]
    print('known-bad variants:', 'all fail' if not any(bad) else 'SOME PASS')
    raise SystemExit(0 if ok and not any(bad) else 1)
