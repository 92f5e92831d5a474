# SPDX-License-Identifier: MIT
"""Paper and picture checks read back from the files, as a printer or a
viewer sees them (poppler's pdftoppm, a PNG decoder here):
  measure  a square of tests/fixtures/render/measure.xml measures 45 mm
           +- 0.2 mm between neighbouring grid lines, at 300 dpi;
  overlap  neighbouring poster pages show the same 10 mm of the board
           (schemas/render.md "Paper"), in both directions;
  words    a picture PNG shows the square names: renaming one square
           changes pixels there and nowhere else;
  backs    a tile sheet's page of backs is its page of fronts mirrored
           left to right (long-edge duplex), tiles found on the documented
           grid of 45 mm squares.
usage: pictures.py CARCAMAP OUTDIR"""
import os
import re
import struct
import subprocess
import sys
import zlib

FIX = "tests/fixtures/render/measure.xml"
MARGIN_MM = OVERLAP_MM = 10
SLUG_MM = 10
CELL = 36  # units a square


def run(*args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)


def pgm(pdf, dpi, page, prefix):
    """Page `page` of pdf in grey at dpi: (width, height, bytes)."""
    run("pdftoppm", "-gray", "-r", str(dpi), "-f", str(page), "-l", str(page), "-singlefile", pdf, prefix)
    data = open(prefix + ".pgm", "rb").read()
    m = re.match(rb"P5\s+(\d+)\s+(\d+)\s+255\s", data)
    w, h = int(m.group(1)), int(m.group(2))
    return w, h, data[m.end():]


def geometry(cm, out, xml):
    svg = os.path.join(out, "geom.svg")
    run(cm, "render", xml, "-o", svg)
    t = open(svg, encoding="utf-8").read()
    vb = re.search(r'viewBox="0 0 (\d+) (\d+)"', t)
    return (int(vb.group(1)), int(vb.group(2)), int(re.search(r'data-ox="(\d+)"', t).group(1)),
            int(re.search(r'data-oy="(\d+)"', t).group(1)))


def measure(cm, out):
    pdf = os.path.join(out, "measure.pdf")
    run(cm, "render", FIX, "-o", pdf)
    _, _, ox, oy = geometry(cm, out, FIX)
    dpi, mm_per_unit = 300, 45.0 / CELL
    px = lambda mm: mm * dpi / 25.4  # noqa: E731
    w, h, g = pgm(pdf, dpi, 1, os.path.join(out, "measure"))
    y = int(round(px(SLUG_MM + (oy + CELL / 2) * mm_per_unit)))  # the middle of the top row
    line = g[y * w:(y + 1) * w]
    land = sorted(line[int(px(SLUG_MM + (ox + 18) * mm_per_unit)):][:50])[25]
    # the grid lines: runs of pixels clearly darker than the land
    runs, start = [], None
    for x, v in enumerate(line):
        dark = v < land - 25
        if dark and start is None:
            start = x
        if not dark and start is not None:
            runs.append((start + x - 1) / 2)
            start = None
    fail = 0
    centres = []
    for k in range(1, 5):  # the inner lines: the outer ones touch the edge prints
        want = px(SLUG_MM + (ox + k * CELL) * mm_per_unit)
        near = [c for c in runs if abs(c - want) < px(3)]
        if len(near) != 1:
            print("FAIL measure: grid line %d: %d dark runs near x=%.1f px" % (k, len(near), want))
            return 1
        centres.append(near[0])
    for a, b in zip(centres, centres[1:]):
        mm = (b - a) * 25.4 / dpi
        if abs(mm - 45.0) > 0.2:
            print("FAIL measure: a square measures %.3f mm, not 45 +- 0.2" % mm)
            fail = 1
    if not fail:
        print("render: squares measure %s mm at %d dpi" % (", ".join("%.2f" % ((b - a) * 25.4 / dpi)
                                                                  for a, b in zip(centres, centres[1:])), dpi))
    return fail


def grid(pic_w_mm, pic_h_mm, paper):
    """Columns, rows and paper as the documentation says: the paper less
    its margins, neighbours sharing the overlap, turned whichever way
    needs fewer pages (portrait on a tie)."""
    best = None
    for pw, ph in (paper, paper[::-1]):
        sw, sh = pw - 2 * MARGIN_MM - OVERLAP_MM, ph - 2 * MARGIN_MM - OVERLAP_MM
        c = max(1, -(-(pic_w_mm - OVERLAP_MM) // sw))
        r = max(1, -(-(pic_h_mm - OVERLAP_MM) // sh))
        if best is None or c * r < best[0] * best[1]:
            best = (int(c), int(r), (pw, ph))
    return best


def overlap(cm, out):
    xml = "tests/fixtures/cli/tiny/tiny.xml"
    pdf = os.path.join(out, "poster.pdf")
    run(cm, "render", xml, "--paper", "a4", "-o", pdf)
    vw, vh, _, _ = geometry(cm, out, xml)
    cols, rows, paper = grid(vw * 45.0 / CELL, vh * 45.0 / CELL, (210, 297))
    pages = int(re.search(r"Pages:\s+(\d+)", subprocess.run(["pdfinfo", pdf], capture_output=True,
                                                             text=True).stdout).group(1))
    first = subprocess.run(["pdftotext", "-f", "1", "-l", "1", pdf, "-"], capture_output=True).stdout.decode()
    said = re.search(r"(\d+)\u00d7(\d+) pages", first)
    if not said or (int(said.group(1)), int(said.group(2))) != (cols, rows) or not 2 <= pages <= cols * rows + 1:
        print("FAIL overlap: %d pages, the assembly page says %s, the documentation gives %d x %d" %
              (pages, said.group(0) if said else "nothing", cols, rows))
        return 1
    dpi = 254  # 10 mm = 100 px
    mm = lambda v: int(round(v * dpi / 25.4))  # noqa: E731
    m, ov = mm(MARGIN_MM), mm(OVERLAP_MM)
    fail = 0
    checks = []
    where = {}  # (row, column) -> page, from each page's own words (blank pages are left out)
    for p in range(2, pages + 1):
        t = subprocess.run(["pdftotext", "-f", str(p), "-l", str(p), pdf, "-"], capture_output=True).stdout.decode()
        rc = re.search(r"row (\d+) of \d+, column (\d+) of \d+", t)
        where[(int(rc.group(1)), int(rc.group(2)))] = p
    if (1, 2) in where:
        checks.append(("columns", where[(1, 1)], where[(1, 2)], True))
    if (2, 1) in where:
        checks.append(("rows", where[(1, 1)], where[(2, 1)], False))
    if not checks:
        print("FAIL overlap: no neighbouring pages to compare")
        return 1
    for what, a, b, across in checks:
        w, h, A = pgm(pdf, dpi, a, os.path.join(out, "pa"))
        _, _, B = pgm(pdf, dpi, b, os.path.join(out, "pb"))
        pw, ph = w - 2 * m, h - 2 * m

        def strip(img, x0, y0, shift=0):
            vals = []
            for i in range(5, ov - 5):  # clear of the cut line at the strip's end
                for j in range(m + 5, (h if across else w) - m - 5, 3):
                    x, y = (x0 + i + shift, j) if across else (j, y0 + i + shift)
                    vals.append(img[y * w + x])
            return vals
        sa = strip(A, m + pw - ov, m + ph - ov)
        sb = strip(B, m, m)
        sc = strip(B, m, m, 30)
        diff = sum(abs(p - q) for p, q in zip(sa, sb)) / len(sa)
        control = sum(abs(p - q) for p, q in zip(sa, sc)) / len(sa)
        ink = sum(1 for p in sa if p < 200)
        if diff > 2 or control < 4 * max(diff, 1) or ink < 50:
            print("FAIL overlap (%s): mean difference %.2f, 3 mm off %.2f, %d dark pixels" % (what, diff, control, ink))
            fail = 1
    if not fail:
        print("render: poster of %d x %d pages on A4, neighbours share %d mm (%s)" %
              (cols, rows, OVERLAP_MM, " and ".join(c[0] for c in checks)))
    return fail


def png_pixels(path):
    """RGB rows of an 8-bit RGB PNG, unfiltered."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype == 2
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), 3 * w, [], bytearray(3 * w)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - 3] if i >= 3 else 0
            b, c = prev[i], prev[i - 3] if i >= 3 else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, rows


def words(cm, out):
    src = open("tests/fixtures/cli/tiny/tiny.xml", encoding="utf-8").read()
    _, _, ox, oy = geometry(cm, out, "tests/fixtures/cli/tiny/tiny.xml")
    imgs = {}
    for name in ("Alpha", "Omega", ""):
        xml = os.path.join(out, "words-%s.xml" % (name or "none"))
        open(xml, "w", encoding="utf-8").write(src.replace('name="Alpha"', 'name="%s"' % name if name else ""))
        png = xml[:-4] + ".png"
        run(cm, "render", "-T", "maps/tilesets", "--scale", "72", xml, "-o", png)
        imgs[name] = png_pixels(png)
    k = 72 / CELL  # pixels a unit; "Alpha" names square (1,1), set in its lower half
    box = (int((ox + CELL) * k), int((oy + CELL) * k), int((ox + 2 * CELL) * k), int((oy + 2 * CELL) * k))
    fail = 0
    for other in ("Omega", ""):
        wa, ha, a = imgs["Alpha"]
        wb, hb, b = imgs[other]
        inside = outside = 0
        for y in range(min(ha, hb)):
            if a[y] == b[y]:
                continue
            for x in range(min(wa, wb)):
                if a[y][3 * x:3 * x + 3] != b[y][3 * x:3 * x + 3]:
                    if box[0] <= x < box[2] and box[1] <= y < box[3]:
                        inside += 1
                    else:
                        outside += 1
        if inside < 100 or outside:
            print("FAIL words: Alpha against %r: %d pixels differ in square (1,1), %d elsewhere" %
                  (other or "no name", inside, outside))
            fail = 1
    if not fail:
        print("render: the picture PNG shows the square name (renaming it changes only its square)")
    return fail


def backs(cm, out):
    """Inns & Cathedrals on A4 (schemas/render.md "Tile sheets"): 4 x 5
    tiles of 45 mm, the grid centred, 8 mm more above it for the words."""
    pdf = os.path.join(out, "tiles.pdf")
    run(cm, "render", "maps/tilesets/inns-cathedrals.xml", "--backs", "-o", pdf)
    dpi = 50
    px = lambda mm: mm * dpi / 25.4  # noqa: E731
    cols, rows, t, mark = 4, 5, 45.0, 8.0
    x0, y0 = (210 - cols * t) / 2, (297 - rows * t + 2 * mark) / 2
    occ = []
    for page in (1, 2):
        w, h, g = pgm(pdf, dpi, page, os.path.join(out, "tiles%d" % page))
        # a tile is there when any of nine points inside its square is not
        # paper (its centre alone may be a light road or print)
        occ.append([[min(g[int(px(y0 + (r + 0.5 + dy) * t)) * w + int(px(x0 + (c + 0.5 + dx) * t))]
                         for dx in (-0.25, 0, 0.25) for dy in (-0.25, 0, 0.25)) < 240 for c in range(cols)]
                    for r in range(rows)])
    fronts, back = occ
    mirrored = [row[::-1] for row in fronts]
    n = sum(sum(r) for r in fronts)
    if mirrored != back or n != 18:
        print("FAIL backs: fronts %s, backs %s (%d tiles)" % (fronts, back, n))
        return 1
    print("render: a tile sheet's %d backs mirror its fronts" % n)
    return 0


def main(cm, out):
    os.makedirs(out, exist_ok=True)
    return measure(cm, out) | overlap(cm, out) | words(cm, out) | backs(cm, out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
