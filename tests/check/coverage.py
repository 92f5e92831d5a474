"""Every check id of the catalogue has a fixture that triggers it and a near
miss that must not (tests/check/coverage.txt says where); an id without a
row fails. usage: coverage.py CARCAMAP   (from the project root)"""
import json
import os
import subprocess
import sys
import tempfile

cm = sys.argv[1]
table = "tests/check/coverage.txt"
tmp = tempfile.TemporaryDirectory()
# CM0004: an XML file one byte over the 64 MiB input limit (sparse)
huge = os.path.join(tmp.name, "huge.xml")
with open(huge, "wb") as f:
    f.write(b"<tileset>")
    f.truncate(64 * 1024 * 1024 + 1)

cache = {}


def ids(args):
    """The check ids one `carcamap check` run reports (runs are cached: the
    near misses serve many rows)."""
    key = tuple(args)
    if key not in cache:
        p = subprocess.run([cm, "check", "-T", "maps/tilesets", "-T", "tests/fixtures/check/tilesets",
                            "--format", "json"] + args, capture_output=True, text=True)
        cache[key] = {d["rule"] for d in json.loads(p.stdout)["diagnostics"] if d["rule"]}
    return cache[key]


rows = {}
for line in open(table):
    if line.strip() and not line.startswith("#"):
        words = line.replace("$TMP", tmp.name).split()
        rows[words[0]] = words[1:]
listed = subprocess.run([cm, "check", "--list"], capture_output=True, text=True, check=True).stdout
fails = []
n = 0
for id_ in (l.split()[0] for l in listed.splitlines()):
    row = rows.get(id_)
    if not row:
        fails.append(f"{id_} has no row in {table}")
        continue
    n += 1
    kind, rest = row[0], row[1:]
    if kind == "check":
        if "--" not in rest:
            fails.append(f"{id_} has no near miss")
            continue
        cut = rest.index("--")
        trig, near = rest[:cut], rest[cut + 1:]
        if id_ not in ids(trig):
            fails.append(f"{id_} not reported on {' '.join(trig)}")
        if not near or id_ in ids(near):
            fails.append(f"{id_} reported on its near miss {' '.join(near)}")
    elif kind in ("table", "unit"):
        if id_ not in open(rest[0]).read():
            fails.append(f"{id_} not in {rest[0]}")
    elif kind != "exempt":
        fails.append(f"{id_}: unknown row kind {kind}")
for f in fails:
    print("FAIL", f)
if not fails:
    print(f"catalogue: {n} checks covered")
sys.exit(1 if fails else 0)
