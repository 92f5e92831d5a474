# SPDX-License-Identifier: MIT
"""Every word of every bundled map is text in its SVG picture: the map's
name, every square, big-city, island (its title) and ferry name, every
edge print label and every Map-Chips marker, taken from the map's JSON
export (the model, names from the image's legend included). Text means
a <text>, <tspan> or <title> of the SVG (a shortened label keeps its full
text in a <title>). usage: names.py DIR (DIR/ID.json beside DIR/ID.svg)"""
import glob
import json
import os
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def words(m):
    yield "map name", m["name"]
    for s in m["squares"]:
        if s.get("name"):
            yield "square (%d,%d)" % (s["x"], s["y"]), s["name"]
        for k in s.get("markers") or []:
            yield "marker on (%d,%d)" % (s["x"], s["y"]), k
    for e in m["edge_prints"]:
        if e.get("label"):
            yield "edge label (%d,%d) %s" % (e["x"], e["y"], e["side"]), e["label"]
    for b in m["bigcities"]:
        if b.get("name"):
            yield "big city", b["name"]
    for i in m["islands"]:
        yield "island", i.get("title") or i["name"]
    for f in m["ferries"]:
        if f.get("name"):
            yield "ferry", f["name"]


def texts(svg):
    out = []
    for el in ET.parse(svg).iter():
        if el.tag in (NS + "text", NS + "tspan", NS + "title"):
            out.append("".join(el.itertext()))
    return out


def main(d):
    fail = 0
    n_maps = n_words = 0
    for j in sorted(glob.glob(os.path.join(d, "*.json"))):
        svg = j[:-5] + ".svg"
        m = json.load(open(j, encoding="utf-8"))
        t = texts(svg)
        n_maps += 1
        for what, w in words(m):
            n_words += 1
            if not any(w in x for x in t):
                print("FAIL %s: %s %r is not text in the svg" % (os.path.basename(svg), what, w))
                fail = 1
    if n_maps == 0:
        print("FAIL no maps in %s" % d)
        fail = 1
    if not fail:
        print("render: %d words of %d maps are text in their svg" % (n_words, n_maps))
    return fail


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
