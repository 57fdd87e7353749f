#!/usr/bin/env python3
"""Writes a device entry of a profile file that `ninfer-calibrate --out` wrote into
the built-in table, in the table's own layout (one route key per line), with ORIGIN as its
`origin` (the card, driver, CUDA and date; docs/builtin-profiles.md gets the history).
The entry is the profile's only one, or the one --card names (its hardware class).

    append_builtin_entry.py PROFILE BUILTIN ORIGIN
        appends the entry; refuses a card the table already has
    append_builtin_entry.py PROFILE BUILTIN ORIGIN --replace [--only PREFIX ...] [--card CLASS]
        replaces that card's entry: whole, or with --only just the route keys under the
        prefixes (the others kept; both entries must name the same route catalog, and the
        calibration block becomes the profile's)

The table is rewritten whole, so --replace first checks that the file is exactly what this
script renders from it (nothing formatted by hand would be lost); otherwise nothing is written.
BUILTIN is runtime/src/profile/builtin-device-profiles.json."""
import argparse
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


def render(table_text, devices):
    """The table file with these entries, in the layout the file has."""
    head = table_text[: table_text.index('"devices": [') + len('"devices": [')]
    return head + "\n" + ",\n".join(entry_text(e, e["origin"]) for e in devices) + "\n  ]\n}\n"


def replaced(old, new, origin, only):
    """The entry `old` with `new`'s routes (those under `only`, or all) and calibration."""
    if not only:
        return dict(new, origin=origin)
    if old["calibration"]["route_catalog"] != new["calibration"]["route_catalog"]:
        sys.exit(f"route catalogs differ ({old['calibration']['route_catalog']} in the table, "
                 f"{new['calibration']['route_catalog']} in the profile): replace the entry whole")
    def under(key):
        return any(key.startswith(p) for p in only)

    taken = {k: v for k, v in new["routes"].items() if under(k)}
    if not taken:
        sys.exit(f"the profile has no route key under {', '.join(only)}")
    routes = {k: v for k, v in old["routes"].items() if not under(k)}
    routes.update(taken)
    return dict(old, origin=origin, calibration=new["calibration"], routes=routes)


def write(path, text):
    """The table written, once it still parses as one JSON document."""
    json.loads(text)
    open(path, "w").write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("profile")
    ap.add_argument("builtin")
    ap.add_argument("origin")
    ap.add_argument("--replace", action="store_true", help="replace the card's entry instead of appending one")
    ap.add_argument("--only", action="append", default=[], metavar="PREFIX",
                    help="with --replace: only the route keys under PREFIX (repeatable)")
    ap.add_argument("--card", metavar="HARDWARE_CLASS", help="the profile's entry to take, where it has several")
    a = ap.parse_args()
    if a.only and not a.replace:
        ap.error("--only goes with --replace")
    devices = json.load(open(a.profile))["devices"]
    if a.card:
        devices = [d for d in devices if d["hardware_class"] == a.card]
        if not devices:
            sys.exit(f"{a.profile} has no {a.card} entry")
    elif len(devices) != 1:
        sys.exit(f"{a.profile} has {len(devices)} entries "
                 f"({', '.join(d['hardware_class'] for d in devices)}): name one with --card")
    entry = devices[0]
    text = open(a.builtin).read()
    table = json.loads(text)
    same = [i for i, d in enumerate(table["devices"]) if d["hardware_class"] == entry["hardware_class"]]
    if a.replace:
        if not same:
            sys.exit(f"{a.builtin} has no {entry['hardware_class']} entry to replace (append it without --replace)")
        if render(text, table["devices"]) != text:
            sys.exit(f"{a.builtin} is not in this script's layout: a rewrite would change more than the entry; not written")
        i = same[0]
        old = table["devices"][i]
        table["devices"][i] = replaced(old, entry, a.origin, a.only)
        write(a.builtin, render(text, table["devices"]))
        changed = sorted(k for k in set(old["routes"]) | set(table["devices"][i]["routes"])
                         if old["routes"].get(k) != table["devices"][i]["routes"].get(k))
        print(f"replaced {entry['hardware_class']}: {len(changed)} route keys changed"
              + "".join(f"\n  {k}" for k in changed))
        return
    if same:
        sys.exit(f"{a.builtin} already has {entry['hardware_class']}: --replace (with --only for some families)")
    tail = "\n  ]\n}\n"
    if not text.endswith(tail):
        sys.exit(f"{a.builtin}: does not end with the devices array's close; not written")
    write(a.builtin, text[: -len(tail)] + ",\n" + entry_text(entry, a.origin) + tail)
    print("appended", entry["hardware_class"], len(entry["routes"]), "route keys")


if __name__ == "__main__":
    main()
