#!/usr/bin/env python3
"""Appends the first device entry of a profile file that `ninfer-calibrate --out` wrote to
the built-in table, in the table's own layout (one route key per line), with ORIGIN as its
`origin` (the card, driver, CUDA and date; docs/builtin-profiles.md gets the history).
Refuses a card the table already has: a recalibration is merged into that entry by hand.
Usage: scripts/append_builtin_entry.py PROFILE runtime/src/profile/builtin-device-profiles.json ORIGIN"""
import json, sys
prof, builtin, origin = sys.argv[1], sys.argv[2], sys.argv[3]
entry = json.load(open(prof))["devices"][0]
table = json.load(open(builtin))
if any(d["hardware_class"] == entry["hardware_class"] for d in table["devices"]):
    sys.exit(f"{builtin} already has {entry['hardware_class']}: merge the routes into it by hand")
def block(e):
    lines = ["    {"]
    lines.append(f'      "hardware_class": {json.dumps(e["hardware_class"])},')
    lines.append(f'      "multiprocessors": {e["multiprocessors"]},')
    lines.append(f'      "origin": {json.dumps(origin, ensure_ascii=False)},')
    lines.append('      "calibration": {')
    cal = e["calibration"]
    items = list(cal.items())
    for i, (k, v) in enumerate(items):
        lines.append(f'        {json.dumps(k)}: {json.dumps(v)}' + ("," if i < len(items) - 1 else ""))
    lines.append("      },")
    lines.append('      "routes": {')
    routes = sorted(e["routes"].items())
    for i, (k, bands) in enumerate(routes):
        b = ", ".join(f"[{w}, {json.dumps(s)}]" for w, s in bands)
        lines.append(f'        {json.dumps(k)}: [{b}]' + ("," if i < len(routes) - 1 else ""))
    lines.append("      }")
    lines.append("    }")
    return "\n".join(lines)
text = open(builtin).read()
tail = "\n  ]\n}\n"
assert text.endswith(tail), "unexpected end of the built-in table"
text = text[: -len(tail)] + ",\n" + block(entry) + tail
json.loads(text)
open(builtin, "w").write(text)
print("appended", entry["hardware_class"], len(entry["routes"]), "route keys")
