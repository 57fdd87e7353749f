#!/usr/bin/env python3
"""Appends the first device entry of a profile file that `ninfer-calibrate --out` wrote to
the built-in table, in the table's own layout (one route key per line), with ORIGIN as its
`origin` (the card, driver, CUDA and date; docs/builtin-profiles.md gets the history).
Refuses a card the table already has: a recalibration is merged into that entry by hand.
Usage: scripts/append_builtin_entry.py PROFILE runtime/src/profile/builtin-device-profiles.json ORIGIN"""
import json
import sys


def members(pairs, indent):
    """`"key": value` lines at `indent`, commas between them."""
    lines = [f"{indent}{json.dumps(k)}: {v}" for k, v in pairs]
    return ",\n".join(lines)


def entry_text(e, origin):
    calibration = members(((k, json.dumps(v)) for k, v in e["calibration"].items()), " " * 8)
    routes = members(
        ((k, "[" + ", ".join(f"[{w}, {json.dumps(s)}]" for w, s in bands) + "]")
         for k, bands in sorted(e["routes"].items())),
        " " * 8)
    head = members([("hardware_class", json.dumps(e["hardware_class"])),
                    ("multiprocessors", str(e["multiprocessors"])),
                    ("origin", json.dumps(origin, ensure_ascii=False))], " " * 6)
    return (f"    {{\n{head},\n      \"calibration\": {{\n{calibration}\n      }},\n"
            f"      \"routes\": {{\n{routes}\n      }}\n    }}")


def main():
    prof, builtin, origin = sys.argv[1:4]
    entry = json.load(open(prof))["devices"][0]
    table = json.load(open(builtin))
    if any(d["hardware_class"] == entry["hardware_class"] for d in table["devices"]):
        sys.exit(f"{builtin} already has {entry['hardware_class']}: merge the routes into it by hand")
    text = open(builtin).read()
    tail = "\n  ]\n}\n"
    if not text.endswith(tail):
        sys.exit(f"{builtin}: does not end with the devices array's close; not written")
    text = text[: -len(tail)] + ",\n" + entry_text(entry, origin) + tail
    json.loads(text)  # still one JSON document
    open(builtin, "w").write(text)
    print("appended", entry["hardware_class"], len(entry["routes"]), "route keys")


if __name__ == "__main__":
    main()
