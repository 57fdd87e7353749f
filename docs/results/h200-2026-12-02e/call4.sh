#!/usr/bin/env bash
# call 4: the final build (GATED, PTX of be81c8c) through the full attention check
set -u
cd "$(dirname "$0")/../.."
mkdir -p /tmp/bin/G && xz -dc target/ab/GATED/ninfer.xz > /tmp/bin/G/ninfer && chmod +x /tmp/bin/G/ninfer
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
timeout 230 /tmp/bin/G/ninfer check --only attn_i8_small > $OUT/check-attn-final-call4.txt 2>&1; echo "rc=$?"
grep -E 'FAIL|checks of' $OUT/check-attn-final-call4.txt | tail -5
