// SPDX-License-Identifier: MIT
// carcamap-reader: the dependency-free CMAP reader (lib/reader/cmap.c)
// compiled to WebAssembly, wrapped as an ES module for browsers and node.
// init() loads cmap.wasm once; openMap(bytes) checks a binary map export
// completely (as cmap_open does) and returns a CmapMap whose accessors
// give plain objects, enumerations as the JSON export's strings.

let wasm = null; // the instance's exports
let scratch = 0; // 256 bytes of wasm memory for out-structs

const NONE = 0xffffffff;
const TABLES = ['markers', 'prints', 'bigcities', 'pieces', 'features', 'contacts', 'ferries',
  'islands', 'tilesets', 'tiles', 'deck'];
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Loads the WebAssembly module (once). source: a URL, a path, bytes or a
 * WebAssembly.Module; default: cmap.wasm beside this file. */
export async function init(source) {
  if (wasm) return;
  let module;
  if (source instanceof WebAssembly.Module) {
    module = source;
  } else if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
    module = await WebAssembly.compile(source);
  } else {
    const url = source ? new URL(String(source), import.meta.url) : new URL('./cmap.wasm', import.meta.url);
    if (url.protocol === 'file:') {
      const { readFile } = await import('node:fs/promises');
      module = await WebAssembly.compile(await readFile(url));
    } else {
      module = await WebAssembly.compile(await (await fetch(url)).arrayBuffer());
    }
  }
  // the one import: emscripten's notice that memory grew (views are
  // re-taken after every call anyway)
  const instance = await WebAssembly.instantiate(module, { env: { emscripten_notify_memory_growth() {} } });
  if (instance.exports._initialize) instance.exports._initialize();
  wasm = instance.exports;
  scratch = wasm.malloc(256);
  if (!scratch) throw new Error('carcamap-reader: out of memory');
}

function need() {
  if (!wasm) throw new Error('carcamap-reader: call init() first');
}
// views are taken after every call: memory may have grown
const u8 = () => new Uint8Array(wasm.memory.buffer);
const u32 = (p) => new DataView(wasm.memory.buffer).getUint32(p, true);
const i32 = (p) => new DataView(wasm.memory.buffer).getInt32(p, true);
const u16 = (p) => new DataView(wasm.memory.buffer).getUint16(p, true);
const idx = (v) => (v === NONE ? null : v);

function cstr(p) {
  if (!p) return null;
  const m = u8();
  let e = p;
  while (m[e]) e++;
  return decoder.decode(m.subarray(p, e));
}
const name = (fn, v) => cstr(wasm[fn](v));

/** An error of the reader: code is the CMAP_E… number (negative). */
export class CmapError extends Error {
  constructor(code) {
    need();
    super(`carcamap-reader: ${cstr(wasm.cmap_strerror(code))}`);
    this.name = 'CmapError';
    this.code = code;
  }
}

function check(rc) {
  if (rc !== 0) throw new CmapError(rc);
}

// Arguments are checked before they reach the wasm functions, which take
// unsigned 32-bit integers: 2**32 or NaN would arrive as 0.
function whole(v, what) {
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    throw new TypeError(`carcamap-reader: ${what} must be a whole number, not ${typeof v === 'number' ? v : typeof v}`);
  }
  return v;
}
function inRange(v, n, what) {
  whole(v, what);
  if (v < 0 || v >= n) {
    throw new RangeError(`carcamap-reader: ${what} ${v} is outside 0..${n - 1}`);
  }
  return v;
}
// The bytes of an ArrayBuffer or of any view of one (typed array, Buffer,
// DataView), without a copy.
function bytesOf(b) {
  if (b instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && b instanceof SharedArrayBuffer)) {
    return new Uint8Array(b);
  }
  if (ArrayBuffer.isView(b)) return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  throw new TypeError('carcamap-reader: openMap takes an ArrayBuffer, a typed array or a DataView of the bytes');
}
const TABLE_OF = {
  cmap_get_marker: 'markers', cmap_get_print: 'prints', cmap_get_bigcity: 'bigcities', cmap_get_piece: 'pieces',
  cmap_get_feature: 'features', cmap_get_contact: 'contacts', cmap_get_ferry: 'ferries',
  cmap_get_island: 'islands', cmap_get_tileset: 'tilesets', cmap_get_tile: 'tiles', cmap_get_deck_entry: 'deck',
};

function shape(p) {
  return {
    edges: [0, 1, 2, 3].map((s) => name('cmap_edge_kind_name', u32(p + 4 * s))),
    firstFeature: u32(p + 16), nFeatures: u32(p + 20),
    firstContact: u32(p + 24), nContacts: u32(p + 28),
  };
}

/** A binary map opened by openMap(); close() frees its memory. */
export class CmapMap {
  constructor(bytes) {
    need();
    const data = bytesOf(bytes);
    this._buf = wasm.malloc(Math.max(1, data.length));
    if (!this._buf) throw new CmapError(-2);
    u8().set(data, this._buf);
    const rc = wasm.cmap_open(this._buf, data.length, scratch);
    if (rc !== 0) {
      wasm.free(this._buf);
      this._buf = 0;
      throw new CmapError(rc);
    }
    this._m = u32(scratch);
    wasm.cmap_version(this._m, scratch, scratch + 4);
    this.version = { major: u32(scratch), minor: u32(scratch + 4) };
    this.id = cstr(wasm.cmap_id(this._m));
    this.name = cstr(wasm.cmap_name(this._m));
    this.cols = wasm.cmap_cols(this._m) >>> 0;
    this.rows = wasm.cmap_rows(this._m) >>> 0;
    this.counts = {};
    TABLES.forEach((t, i) => { this.counts[t] = wasm.cmap_count(this._m, i) >>> 0; });
  }

  close() {
    if (this._m) wasm.cmap_close(this._m);
    if (this._buf) wasm.free(this._buf);
    this._m = 0;
    this._buf = 0;
  }

  _open() {
    if (!this._m) throw new Error('carcamap-reader: map is closed');
  }

  _square(x, y) {
    this._open();
    inRange(x, this.cols, 'x');
    inRange(y, this.rows, 'y');
  }

  _get(fn, i) {
    this._open();
    const t = TABLE_OF[fn];
    inRange(i, this.counts[t], `${t} index`);
    check(wasm[fn](this._m, i, scratch));
    return scratch;
  }

  rules() {
    this._open();
    wasm.cmap_get_rules(this._m, scratch);
    const p = scratch;
    return {
      startsUsed: i32(p), tilesMin: i32(p + 4), tilesMax: i32(p + 8), followers: i32(p + 12),
      edition: name('cmap_edition_name', u32(p + 16)), farmers: u32(p + 20) === 1 ? 'C1' : 'C2',
      tinyCity: u32(p + 24) !== 0, farmersBigcity: u32(p + 28) !== 0, townExtraTurn: u32(p + 32) !== 0,
      townCost: u32(p + 36) !== 0, townRoadBonus: u32(p + 40) !== 0, abbeyEdge: u32(p + 44) !== 0,
    };
  }

  square(x, y) {
    this._square(x, y);
    check(wasm.cmap_get_square(this._m, x, y, scratch));
    const p = scratch;
    return {
      x, y, kind: name('cmap_square_kind_name', u32(p)), arms: u32(p + 4), name: cstr(u32(p + 8)),
      island: idx(u32(p + 12)), bigcity: idx(u32(p + 16)),
      firstMarker: u32(p + 20), nMarkers: u32(p + 24),
    };
  }

  /** The edge print index on each side N, E, S, W of a square, or null. */
  squarePrints(x, y) {
    this._square(x, y);
    check(wasm.cmap_square_prints(this._m, x, y, scratch));
    return [0, 1, 2, 3].map((s) => idx(u32(scratch + 4 * s)));
  }

  marker(i) { return cstr(u32(this._get('cmap_get_marker', i))); }

  print(i) {
    const p = this._get('cmap_get_print', i);
    return { x: u32(p), y: u32(p + 4), side: name('cmap_side_name', u32(p + 8)),
      kind: name('cmap_print_kind_name', u32(p + 12)), arms: u32(p + 16), label: cstr(u32(p + 20)) };
  }

  bigcity(i) {
    const p = this._get('cmap_get_bigcity', i);
    return { name: cstr(u32(p)), firstPiece: u32(p + 4), nPieces: u32(p + 8) };
  }

  piece(i) {
    const p = this._get('cmap_get_piece', i);
    return { x: u32(p), y: u32(p + 4), shape: shape(p + 8) };
  }

  feature(i) {
    const p = this._get('cmap_get_feature', i);
    const good = name('cmap_good_name', u32(p + 16));
    return { kind: name('cmap_feature_kind_name', u32(p)), arms: u32(p + 4),
      cathedral: u32(p + 8) !== 0, inn: u32(p + 12) !== 0, good: good === 'none' ? null : good,
      slots: u16(p + 20), id: cstr(u32(p + 24)), touches: u32(p + 28) };
  }

  contact(i) { return u32(this._get('cmap_get_contact', i)); }

  ferry(i) {
    const p = this._get('cmap_get_ferry', i);
    return { name: cstr(u32(p)), from: { x: u32(p + 4), y: u32(p + 8), side: name('cmap_side_name', u32(p + 20)) },
      to: { x: u32(p + 12), y: u32(p + 16), side: name('cmap_side_name', u32(p + 24)) }, arms: u32(p + 28) };
  }

  island(i) {
    const p = this._get('cmap_get_island', i);
    return { name: cstr(u32(p)), title: cstr(u32(p + 4)) };
  }

  tileset(i) {
    const p = this._get('cmap_get_tileset', i);
    const tot = (k) => { const v = i32(p + 12 + 4 * k); return v < 0 ? null : v; };
    return { id: cstr(u32(p)), name: cstr(u32(p + 4)), base: u32(p + 8) !== 0,
      totals: [tot(0), tot(1), tot(2)], firstTile: u32(p + 24), nTiles: u32(p + 28) };
  }

  tile(i) {
    const p = this._get('cmap_get_tile', i);
    return { id: cstr(u32(p)), name: cstr(u32(p + 4)), counts: [u32(p + 8), u32(p + 12), u32(p + 16)],
      inDeck: u32(p + 20), start: u32(p + 24) !== 0, shape: shape(p + 28) };
  }

  deckEntry(i) {
    const p = this._get('cmap_get_deck_entry', i);
    const count = i32(p + 8);
    return { tileset: u32(p), tile: idx(u32(p + 4)), count: count < 0 ? null : count };
  }
}

/** Checks bytes (a binary map export) and opens them; throws CmapError. */
export function openMap(bytes) {
  return new CmapMap(bytes);
}

/** Slot names and rotation, as the rules engine has them. */
// turns: any whole number of quarter turns, reduced here (the wasm takes 32 bits)
const quarter = (turns) => ((whole(turns, 'turns') % 4) + 4) % 4;
export function slotName(bit) {
  need();
  whole(bit, 'slot');
  return bit >= 0 && bit < 12 ? name('cmap_slot_name', bit) : null;
}
export function slotsRotate(slots, turns) {
  need();
  return wasm.cmap_slots_rotate(inRange(slots, 4096, 'slots'), quarter(turns)) & 0xfff;
}
export function sideRotate(side, turns) { need(); return wasm.cmap_side_rotate(inRange(side, 4, 'side'), quarter(turns)) >>> 0; }
export function sideOpposite(side) { need(); return wasm.cmap_side_opposite(inRange(side, 4, 'side')) >>> 0; }
export function slotFacing(bit) { need(); return wasm.cmap_slot_facing(inRange(bit, 12, 'slot')) >>> 0; }
