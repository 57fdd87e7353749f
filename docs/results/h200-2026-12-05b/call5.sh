#!/usr/bin/env bash
# call 5, as it ran (one command line of the device tool, written out): decode attention on
# call 4's profile (carried in the working tree) and on the compiled routes, the SDPA
# baselines on BF16 KV, and the two comparisons. Build: FINAL2 as in call1.sh, already
# unpacked on the warm machine by call 4; carry target/ab/FINAL2.
set -u
cd "$(dirname "$0")/../../.."
P=docs/results/h200-2026-12-05b/call4/h100-attention-profiles.json; B=/tmp/bin/FINAL2; S=$OUT/summary-call5.txt; for k in attn_i8_small/h24/int8/w1 attn_i8_small/h24/rk8v4/w1 attn_i8_small/h24/int8/w8 attn_i8_small/h24/rk8v4/w8; do for m in cal off; do a="--device-profile-path $P"; [ $m = off ] && a="--device-profile off"; timeout 20 $B/ninfer bench $a --only $k --widths 8192,65536,262144 --json > $OUT/attn-$m-${k//\//_}.json 2>/dev/null; echo "$k $m rc=$?" >> $S; done; done; python3 - $OUT <<'PY' >> $S
import json,glob,sys,os
o=sys.argv[1]
for m in ("cal","off"):
    rows=[]; docs=[]
    for p in sorted(glob.glob(os.path.join(o,f"attn-{m}-*.json"))):
        try: d=json.load(open(p)); docs.append(d); rows+=d["results"]
        except Exception as e: print(p,e)
    if docs:
        d=dict(docs[0]); d["results"]=rows; json.dump(d,open(os.path.join(o,f"bench-attn-{m}.json"),"w"))
PY
timeout 90 python3 scripts/torch_attention_baselines.py --windows 8192,65536,262144 --widths 1,8 --backends flash,cudnn --out $OUT/torch-attn.json 2> $OUT/torch-attn.err; echo "torch rc=$?" >> $S; python3 scripts/compare_attention_baselines.py $OUT/torch-attn.json $OUT/bench-attn-cal.json > $OUT/compare-attn.txt 2>&1; python3 scripts/compare_routes.py $OUT/bench-attn-off.json $OUT/bench-attn-cal.json > $OUT/routes-attn.txt 2>&1; echo "compare_routes rc=$?" >> $S; cat $S; cat $OUT/compare-attn.txt | tail -30; tail -15 $OUT/routes-attn.txt; rm -f $OUT/attn-*.json
