# SPDX-License-Identifier: MIT
# The JSON export's ferries against the descriptor's <ferry> elements, for
# every descriptor given (run by the CLI case export_json_ferry_ends): the
# same ends, in order, each end's square and side; the JS reader's test
# compares them too, but it needs emscripten. Usage: export_ferries.py CM
# MAP.xml...  Prints one line per map, exits 1 on a difference.
import json
import subprocess
import sys
import xml.etree.ElementTree as ET

cm, maps = sys.argv[1], sys.argv[2:]
bad = 0
for path in maps:
    want = []
    for f in ET.parse(path).getroot().iter('ferry'):
        want.append(((int(f.get('x1')), int(f.get('y1')), f.get('side1')),
                     (int(f.get('x2')), int(f.get('y2')), f.get('side2'))))
    out = subprocess.run([cm, 'export', '--format', 'json', path], capture_output=True, check=True).stdout
    got = [((f['from']['x'], f['from']['y'], f['from']['side']), (f['to']['x'], f['to']['y'], f['to']['side']))
           for f in json.loads(out)['ferries']]
    same = got == want
    bad += not same
    print('%s: %d ferries %s' % (path, len(want), 'agree' if same else 'DIFFER: json %s, descriptor %s' % (got, want)))
sys.exit(1 if bad else 0)
