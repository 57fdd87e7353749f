set -u
B=/tmp/h
export NINFER_DEVICE_PROFILES=/tmp/none.json
work=$(mktemp -d)
for k in int8/w1 int8/w8 rk8v4/w1 rk8v4/w8; do
  $B/ninfer bench --only attn_i8_small/h24/$k --widths 8192,65536,262144 --out $work/b-$(echo $k | tr / _).json 2>/dev/null | grep attn_i8
done
python3 - "$work" <<'PY'
import json, sys, glob
fs = sorted(glob.glob(sys.argv[1] + "/b-*.json"))
base = json.load(open(fs[0]))
for f in fs[1:]:
    base["results"] += json.load(open(f))["results"]
json.dump(base, open(sys.argv[1] + "/bench-attn.json", "w"))
PY
cp $work/bench-attn.json $OUT/bench-attn.json
python3 scripts/torch_attention_baselines.py --windows 8192,65536,262144 --widths 1,8 --backends flash,cudnn --replays 9 --out $OUT/torch-attention.json 2> $work/t.txt || tail -5 $work/t.txt
python3 scripts/compare_attention_baselines.py $OUT/torch-attention.json $OUT/bench-attn.json | tee $OUT/compare-attn.txt
