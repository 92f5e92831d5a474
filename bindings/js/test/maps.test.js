// SPDX-License-Identifier: MIT
// node --test: every bundled map's binary export, read through the wasm
// reader, against its JSON export (the same content by specification):
// grid (kind, name, arms, island, big city, markers, prints per side),
// edge prints, counts of every table, rules, deck; the same map in the
// format's previous major version (1.0) reads the same; bad input throws.
// Env: CMAP_JS_PKG (the staged package), CMAP_JS_MAPS (NAME.cmap, 2.0;
// NAME.v1.cmap, 1.0; NAME.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const pkg = process.env.CMAP_JS_PKG;
const dir = process.env.CMAP_JS_MAPS;
assert.ok(pkg && dir, 'CMAP_JS_PKG and CMAP_JS_MAPS must be set');
const r = await import(pathToFileURL(join(pkg, 'index.js')).href);
await r.init();
const names = (await readdir(dir)).filter((f) => f.endsWith('.cmap') && !f.endsWith('.v1.cmap'))
  .map((f) => f.slice(0, -5)).sort();

test('there are bundled maps', () => assert.ok(names.length >= 10, `only ${names.length}`));

for (const n of names) {
  test(`map ${n}: binary export equals JSON export`, async () => {
    const json = JSON.parse(await readFile(join(dir, `${n}.json`), 'utf8'));
    const m = r.openMap(await readFile(join(dir, `${n}.cmap`)));
    try {
      assert.equal(m.id, json.id);
      assert.equal(m.name, json.name);
      assert.equal(m.cols, json.cols);
      assert.equal(m.rows, json.rows);
      assert.deepEqual(m.version, { major: 2, minor: 0 });
      assert.equal(json.squares.length, m.cols * m.rows);
      for (const js of json.squares) {
        const s = m.square(js.x, js.y);
        assert.equal(s.kind, js.kind, `kind at ${js.x},${js.y}`);
        assert.equal(s.name, js.name);
        assert.equal(s.arms, js.arms);
        assert.equal(s.island, js.island);
        assert.equal(s.bigcity, js.bigcity);
        const markers = [];
        for (let k = 0; k < s.nMarkers; k++) markers.push(m.marker(s.firstMarker + k));
        assert.deepEqual(markers, js.markers);
        const sp = m.squarePrints(js.x, js.y);
        ['N', 'E', 'S', 'W'].forEach((side, i) => assert.equal(sp[i], js.prints[side] ?? null, `${side} of ${js.x},${js.y}`));
      }
      assert.equal(m.counts.prints, json.edge_prints.length);
      json.edge_prints.forEach((p, i) => assert.deepEqual(m.print(i), p));
      assert.equal(m.counts.bigcities, json.bigcities.length);
      json.bigcities.forEach((b, i) => {
        const got = m.bigcity(i);
        assert.equal(got.name, b.name);
        assert.equal(got.nPieces, b.pieces.length);
        b.pieces.forEach((pc, k) => {
          const p = m.piece(got.firstPiece + k);
          assert.deepEqual([p.x, p.y, p.shape.edges], [pc.x, pc.y, pc.edges]);
          assert.equal(p.shape.nFeatures, pc.features.length);
        });
      });
      assert.equal(m.counts.ferries, json.ferries.length);
      json.ferries.forEach((f, i) => assert.deepEqual(m.ferry(i), f));
      assert.equal(m.counts.islands, json.islands.length);
      json.islands.forEach((is, i) => assert.deepEqual(m.island(i), is));
      const rules = m.rules();
      assert.equal(rules.edition, json.rules.edition);
      assert.equal(rules.farmers, json.rules.farmers);
      assert.equal(rules.abbeyEdge, json.rules.abbey_edge);
      assert.equal(rules.startsUsed, json.setup.starts_used);
      assert.equal(m.counts.deck, json.deck.entries.length);
      assert.equal(m.counts.tilesets, json.deck.tilesets.length);
      assert.equal(m.counts.tiles, json.deck.tilesets.reduce((a, t) => a + t.tiles.length, 0));
      json.deck.entries.forEach((e, i) => {
        const d = m.deckEntry(i);
        assert.equal(m.tileset(d.tileset).id, e.tileset);
        assert.equal(d.tile === null ? null : m.tile(d.tile).id, e.tile);
        assert.equal(d.count, e.count);
      });
      json.deck.tilesets.forEach((t, i) => {
        const ts = m.tileset(i);
        assert.equal(ts.id, t.id);
        t.tiles.forEach((tile, k) => {
          const got = m.tile(ts.firstTile + k);
          assert.equal(got.id, tile.id);
          assert.equal(got.inDeck, tile.in_deck);
          assert.deepEqual(got.shape.edges, tile.edges);
          tile.features.forEach((f, j) => {
            const gf = m.feature(got.shape.firstFeature + j);
            assert.equal(gf.kind, f.kind);
            assert.equal(gf.slots, f.mask);
            assert.equal(gf.good, f.good);
          });
        });
      });
    } finally {
      m.close();
    }
  });
}

for (const n of names) {
  test(`map ${n}: the 1.0 export reads as the 2.0 one`, async () => {
    const a = r.openMap(await readFile(join(dir, `${n}.cmap`)));
    const b = r.openMap(await readFile(join(dir, `${n}.v1.cmap`)));
    try {
      assert.deepEqual(b.version, { major: 1, minor: 0 });
      assert.deepEqual([b.id, b.name, b.cols, b.rows, b.counts], [a.id, a.name, a.cols, a.rows, a.counts]);
      assert.deepEqual(b.rules(), a.rules());
      for (let y = 0; y < a.rows; y++) {
        for (let x = 0; x < a.cols; x++) {
          assert.deepEqual(b.square(x, y), a.square(x, y));
          assert.deepEqual(b.squarePrints(x, y), a.squarePrints(x, y));
        }
      }
      for (let i = 0; i < a.counts.prints; i++) assert.deepEqual(b.print(i), a.print(i));
      for (let i = 0; i < a.counts.markers; i++) assert.equal(b.marker(i), a.marker(i));
      for (let i = 0; i < a.counts.bigcities; i++) assert.deepEqual(b.bigcity(i), a.bigcity(i));
      for (let i = 0; i < a.counts.pieces; i++) assert.deepEqual(b.piece(i), a.piece(i));
      for (let i = 0; i < a.counts.features; i++) assert.deepEqual(b.feature(i), a.feature(i));
      for (let i = 0; i < a.counts.tiles; i++) assert.deepEqual(b.tile(i), a.tile(i));
      for (let i = 0; i < a.counts.deck; i++) assert.deepEqual(b.deckEntry(i), a.deckEntry(i));
    } finally {
      a.close();
      b.close();
    }
  });
}

test('bad input throws CmapError with the reader code', async () => {
  const b = await readFile(join(dir, `${names[0]}.cmap`));
  assert.throws(() => r.openMap(b.subarray(0, 20)), (e) => e instanceof r.CmapError && e.code === -3);
  const bad = Uint8Array.from(b);
  bad[0] = 0x58;
  assert.throws(() => r.openMap(bad), (e) => e.code === -4 && /not a cmap file/.test(e.message));
  const m = r.openMap(b);
  // arguments: never wrapped to 32 bits or read as 0
  assert.throws(() => m.print(1e9), RangeError);
  assert.throws(() => m.print(m.counts.prints), RangeError);
  assert.throws(() => m.print(-1), RangeError);
  assert.throws(() => m.square(m.cols, 0), RangeError);
  assert.throws(() => m.square(0, m.rows), RangeError);
  assert.throws(() => m.square(2 ** 32, 0), RangeError);
  assert.throws(() => m.square(0, 2 ** 32 + 1), RangeError);
  assert.throws(() => m.square(NaN, NaN), TypeError);
  assert.throws(() => m.square(1.5, 0), TypeError);
  assert.throws(() => m.square('1', 0), TypeError);
  assert.throws(() => m.squarePrints(-1, 0), RangeError);
  assert.throws(() => m.tile(NaN), TypeError);
  assert.deepEqual(m.square(m.cols - 1, m.rows - 1).x, m.cols - 1); // just inside
  m.close();
  assert.throws(() => m.square(0, 0), /closed/);
  // any view of the bytes opens, a DataView too; anything else is a TypeError
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const dv = r.openMap(view);
  assert.equal(dv.id, names[0]);
  dv.close();
  const ab = r.openMap(Uint8Array.from(b).buffer);
  ab.close();
  assert.throws(() => r.openMap('bytes'), TypeError);
  assert.throws(() => r.openMap([1, 2, 3]), TypeError);
});

test('slot helpers', () => {
  assert.equal(r.slotName(0), 'Nw');
  assert.equal(r.slotName(11), 'Wn');
  assert.equal(r.slotName(12), null);
  assert.equal(r.slotName(2 ** 32), null); // not 'Nw'
  assert.throws(() => r.slotName(NaN), TypeError);
  assert.throws(() => r.sideRotate(4, 1), RangeError);
  assert.throws(() => r.slotsRotate(4096, 1), RangeError);
  assert.equal(r.sideRotate(3, -1), 2);
  assert.equal(r.sideRotate(3, 2 ** 32 + 1), 0);
  assert.equal(r.slotsRotate(0b111, 1), 0b111000); // north slots turn east
  assert.equal(r.slotsRotate(0b111, 4), 0b111);
  assert.equal(r.sideRotate(3, 1), 0);
  assert.equal(r.sideOpposite(1), 3);
  assert.equal(r.slotFacing(0), 8); // Nw faces Sw of the square to the north
});
