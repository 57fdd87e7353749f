#!/usr/bin/env python3
"""Writes a device route profile file that routes chosen schedules, for `ninfer bench` of
trial schedules (ones no calibrated entry names): the built-in H200 entry, re-stamped with
the build's route catalog digest, with the given keys' routes replaced.

Usage: route_profile.py CATALOG_JSON OUT KEY=W:SCHED[,W:SCHED...] ...
  CATALOG_JSON  `ninfer catalog --json` of the binary that will read OUT
  KEY=...       e.g. q4_linear_add/5120x17408=32:wg_c32_k8_s4_kn63,64:wg_c64_k6_s4
"""
import json
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parents[3]
catalog = json.load(open(sys.argv[1]))
profile = json.load(open(root / "runtime/src/profile/builtin-device-profiles.json"))
entry = next(d for d in profile["devices"] if d["hardware_class"] == "nvidia-h200-sm90")
entry["calibration"]["route_catalog"] = catalog["route_catalog"]
entry["origin"] = "trial routes for ninfer bench (route_profile.py): " + " ".join(sys.argv[3:])
for arg in sys.argv[3:]:
    key, bands = arg.split("=", 1)
    if key not in entry["routes"]:
        sys.exit(f"route_profile.py: no route key {key} in the built-in entry")
    entry["routes"][key] = [[int(w), s] for w, s in (b.split(":", 1) for b in bands.split(","))]
profile["devices"] = [entry]
json.dump(profile, open(sys.argv[2], "w"), indent=1)
