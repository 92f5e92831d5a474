# SPDX-License-Identifier: MIT
"""Every word of every bundled map is text in its PDF: the words names.py
takes from the map's JSON export, found in `pdftotext -raw` of DIR/ID.pdf
(spaces and line breaks counted alike: a name set on two lines is two
lines of text). usage: pdf_names.py DIR (DIR/ID.json beside DIR/ID.pdf)"""
import glob
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from names import words  # noqa: E402


def main(d):
    fail = n_maps = n_words = 0
    for j in sorted(glob.glob(os.path.join(d, "*.json"))):
        pdf = j[:-5] + ".pdf"
        m = json.load(open(j, encoding="utf-8"))
        text = subprocess.run(["pdftotext", "-raw", "-enc", "UTF-8", pdf, "-"], check=True,
                              capture_output=True).stdout.decode("utf-8")
        flat = re.sub(r"\s+", " ", text)
        n_maps += 1
        for what, w in words(m):
            n_words += 1
            if re.sub(r"\s+", " ", w) not in flat:
                print("FAIL %s: %s %r is not text in the pdf" % (os.path.basename(pdf), what, w))
                fail = 1
    if n_maps == 0:
        print("FAIL no maps in %s" % d)
        fail = 1
    if not fail:
        print("render: %d words of %d maps are text in their pdf" % (n_words, n_maps))
    return fail


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
