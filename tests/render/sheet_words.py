# SPDX-License-Identifier: MIT
"""Every word of a tile sheet is text in its SVG: each set's name, each
tile's id, name, copies per edition and markers, taken from the tile
set's JSON (carcamap export --format json), and with --diagnostics each
check id on its tile. Text means a <text>, <tspan> or <title> (a
shortened label keeps its full text in a <title>).
usage: sheet_words.py SHEET.svg SET.json... [--ids CM0101 ...]"""
import json
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
args = sys.argv[1:]
ids = []
if "--ids" in args:
    k = args.index("--ids")
    ids, args = args[k + 1:], args[:k]
svg, sets = args[0], args[1:]
texts = []
for el in ET.parse(svg).iter():
    if el.tag in (NS + "text", NS + "tspan", NS + "title"):
        texts.append("".join(el.itertext()))
    if el.tag == NS + "text":  # a label split over two lines is one text
        texts.append(" ".join(t.strip() for t in el.itertext()))
blob = "\n".join(texts)
bad = 0


def want(what, word):
    global bad
    if word not in blob:
        print("FAIL %s: %s %r is no text of the sheet" % (svg, what, word))
        bad = 1


n = 0
for path in sets:
    s = json.load(open(path))
    want("set name", s["name"])
    for t in s["tiles"]:
        n += 1
        want("tile id", t["id"])
        if t.get("name"):
            want("name of " + t["id"], t["name"])
        c = t["count"]
        want("copies of " + t["id"], "C1 %d \u00b7 C2 %d \u00b7 C3 %d" % (c["C1"], c["C2"], c["C3"]))
        for m in t.get("markers") or []:
            want("marker of " + t["id"], m)
for i in ids:
    want("check id", i)
if not bad:
    print("render: %s holds the words of %d tiles" % (svg.split("/")[-1], n))
sys.exit(bad)
