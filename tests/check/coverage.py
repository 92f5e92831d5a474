# SPDX-License-Identifier: MIT
"""Every check id of the catalogue has a fixture that triggers it and a near
miss that must not (tests/check/coverage.txt says where), and every limit
of lib/ (a MAX or LIMIT constant) names the tests that hold it at the limit
and one past it, or why none can; an id or constant without a row, a row
whose test is gone, fails. usage: coverage.py CARCAMAP   (from the project
root)"""
import json
import os
import re
import shutil
import sqlite3
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

# Packs: $TMP/good.pack compiled from a good descriptor, then every pack
# recipe (X.gen, the format of tests/unit/test_hostile.c, whose "pack" is
# here the good pack) built into $TMP/X: a binary fixture is never committed
# when a recipe can make it.
good = os.path.join(tmp.name, "good.pack")
subprocess.run([cm, "compile", "-o", good, "-T", "maps/tilesets", "tests/fixtures/check/ok-CM0501-fits.xml"],
               capture_output=True, check=True)
recipes = ["tests/fixtures/hostile/pack", "tests/check/packs"]


def unescape(s):
    """The recipe escapes: \\n \\t \\r \\\\ \\0 \\xHH."""
    out, i = bytearray(), 0
    while i < len(s):
        c = s[i]
        i += 1
        if c != "\\":
            out += c.encode()
        elif s[i] == "x":
            out.append(int(s[i + 1:i + 3], 16))
            i += 3
        else:
            out += {"n": b"\n", "t": b"\t", "r": b"\r", "\\": b"\\", "0": b"\0"}[s[i]]
            i += 1
    return bytes(out)


def generate(gen, out):
    with open(out, "wb"):
        pass
    for line in open(gen):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        op, _, arg = line.partition(" ")
        if op == "pack":
            shutil.copyfile(good, out)
        elif op == "sql":
            db = sqlite3.connect(out)
            db.executescript(arg)
            db.close()
        elif op == "wal-sql":
            # the statements' changes in a WAL beside the pack, which stays as
            # it was: run on a copy in WAL mode, its WAL copied before closing
            copy = out + ".wal-copy"
            shutil.copyfile(out, copy)
            db = sqlite3.connect(copy)
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA wal_autocheckpoint = 0")
            db.executescript(arg)
            shutil.copyfile(copy + "-wal", out + "-wal")
            db.close()
            for f in (copy, copy + "-wal", copy + "-shm"):
                if os.path.exists(f):
                    os.remove(f)
        elif op == "journal-sql":
            # a write left unfinished: a child runs the statements with a
            # one-page cache and dies before committing
            pid = os.fork()
            if pid == 0:
                db = sqlite3.connect(out, isolation_level=None)
                db.execute("PRAGMA cache_size = 1")
                db.execute("BEGIN")
                for stmt in arg.split(";"):
                    if stmt.strip():
                        db.execute(stmt)
                os._exit(0)
            _, status = os.waitpid(pid, 0)
            assert status == 0 and os.path.exists(out + "-journal"), f"{gen}: journal-sql left no journal"
        elif op in ("text", "repeat"):
            n = 1
            if op == "repeat":
                count, arg = arg.split(" ", 1)
                n = int(count)
            with open(out, "ab") as f:
                f.write(unescape(arg) * n)
        else:
            sys.exit(f"{gen}: directive {op} not known to coverage.py")


for d in recipes:
    for name in sorted(os.listdir(d)):
        if name.endswith(".gen"):
            out = os.path.join(tmp.name, name[:-4])
            assert not os.path.exists(out), f"two recipes make {name[:-4]}"
            generate(os.path.join(d, name), out)

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
limits = {}
for line in open(table):
    if line.strip() and not line.startswith("#"):
        words = line.replace("$TMP", tmp.name).split()
        if words[0] == "limit":
            limits.setdefault(words[1], []).append(words[2:])
        else:
            rows.setdefault(words[0], []).append(words[1:])
def named_tests(id_, path, words):
    """The test functions a row names (words test_MODULE__BEHAVIOUR) that path does not define."""
    text = open(path).read()
    for name in (w for w in words if re.fullmatch(r"test_[a-z0-9_]+__[a-z0-9_]+", w)):
        if not re.search(r"\bvoid " + name + r"\(void \*\*state\)", text):
            fails.append(f"{id_}: {path} defines no test {name}")



listed = subprocess.run([cm, "check", "--list"], capture_output=True, text=True, check=True).stdout
fails = []
n = 0
for id_ in (l.split()[0] for l in listed.splitlines()):
    if id_ not in rows:
        fails.append(f"{id_} has no row in {table}")
        continue
    n += 1
    for row in rows[id_]:  # an id may have several rows: each must hold
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
            text = open(rest[0]).read()
            if id_ not in text:
                fails.append(f"{id_} not in {rest[0]}")
            named_tests(id_, rest[0], rest[1:])  # the table stays true when a test is renamed
        elif kind != "exempt":
            fails.append(f"{id_}: unknown row kind {kind}")

# Limits: every MAX or LIMIT constant of lib/ has a row, every row a constant.
constants = set()
for root, _, files in os.walk("lib"):
    for name in files:
        if name.endswith((".c", ".h")):
            text = open(os.path.join(root, name)).read()
            constants.update(re.findall(r"#define\s+((?:[A-Z_][A-Z0-9_]*)?(?:MAX|LIMIT)[A-Z0-9_]*)\b", text))
            constants.update(re.findall(r"\benum\s*\{\s*((?:[A-Z_][A-Z0-9_]*)?MAX[A-Z0-9_]*)\s*=", text))
tested = exempt = 0
for c in sorted(constants):
    if c not in limits:
        fails.append(f"limit {c} (lib/) has no row in {table}")
for c, lrows in sorted(limits.items()):
    if c not in constants:
        fails.append(f"limit {c}: no such constant in lib/")
        continue
    for row in lrows:
        if not row:
            fails.append(f"limit {c}: row names no file")
        elif row[0] == "exempt":
            exempt += 1
            if len(row) < 2:
                fails.append(f"limit {c}: exempt without a reason")
        elif not os.path.isfile(row[0]):
            fails.append(f"limit {c}: no file {row[0]}")
        else:
            tested += 1
            named_tests(f"limit {c}", row[0], row[1:])
for f in fails:
    print("FAIL", f)
if not fails:
    print(f"catalogue: {n} checks covered")
    print(f"limits: {len(constants)} constants, {tested} rows naming their tests, {exempt} exempt")
sys.exit(1 if fails else 0)
