// SPDX-License-Identifier: MIT
// TypeScript declarations of carcamap-reader (index.js).

export type SquareKind = 'none' | 'land' | 'start' | 'town' | 'bigcity' | 'waves' | 'landmark' | 'island' | 'half';
export type Side = 'N' | 'E' | 'S' | 'W';
export type PrintKind = 'neutral' | 'road' | 'city';
export type EdgeKind = 'field' | 'road' | 'city' | 'abbey';
export type FeatureKind = 'road' | 'city' | 'field' | 'monastery' | 'garden' | 'abbey';
export type Good = 'wine' | 'grain' | 'cloth';
export type Edition = 'C1' | 'C2' | 'C3';
export type Table = 'markers' | 'prints' | 'bigcities' | 'pieces' | 'features' | 'contacts' |
  'ferries' | 'islands' | 'tilesets' | 'tiles' | 'deck';

export interface Rules {
  startsUsed: number; tilesMin: number; tilesMax: number; followers: number;
  edition: Edition; farmers: 'C1' | 'C2';
  tinyCity: boolean; farmersBigcity: boolean; townExtraTurn: boolean;
  townCost: boolean; townRoadBonus: boolean; abbeyEdge: boolean;
}
export interface Square {
  x: number; y: number; kind: SquareKind; arms: number; name: string | null;
  island: number | null; bigcity: number | null; firstMarker: number; nMarkers: number;
}
export interface EdgePrint { x: number; y: number; side: Side; kind: PrintKind; arms: number; label: string | null; }
export interface BigCity { name: string | null; firstPiece: number; nPieces: number; }
export interface Shape { edges: [EdgeKind, EdgeKind, EdgeKind, EdgeKind]; firstFeature: number; nFeatures: number; firstContact: number; nContacts: number; }
export interface Piece { x: number; y: number; shape: Shape; }
export interface Feature {
  kind: FeatureKind; arms: number; cathedral: boolean; inn: boolean; good: Good | null;
  /** 12-bit mask, bit 0 = Nw … bit 11 = Wn, clockwise */
  slots: number; id: string | null;
  /** bit i: feature i of the same shape */
  touches: number;
}
export interface FerryEnd { x: number; y: number; side: Side; }
export interface Ferry { name: string | null; from: FerryEnd; to: FerryEnd; arms: number; }
export interface Island { name: string | null; title: string | null; }
export interface Tileset { id: string; name: string | null; base: boolean; totals: [number | null, number | null, number | null]; firstTile: number; nTiles: number; }
export interface Tile { id: string; name: string | null; counts: [number, number, number]; inDeck: number; start: boolean; shape: Shape; }
export interface DeckEntry { tileset: number; tile: number | null; count: number | null; }

/** Loads the WebAssembly module once; default: cmap.wasm beside index.js. */
export function init(source?: string | URL | ArrayBuffer | ArrayBufferView | WebAssembly.Module): Promise<void>;

/** An error of the reader; code is the CMAP_E… number (negative). */
export class CmapError extends Error {
  readonly code: number;
}

/** A checked binary map. Every accessor throws a TypeError for an argument
 * that is not a whole number (NaN, 1.5, '3') and a RangeError for one out of
 * range (a square off the grid, an index at or past counts[table]). */
export class CmapMap {
  readonly id: string;
  readonly name: string | null;
  readonly cols: number;
  readonly rows: number;
  readonly version: { major: number; minor: number };
  readonly counts: Record<Table, number>;
  close(): void;
  rules(): Rules;
  square(x: number, y: number): Square;
  /** Edge print indices on sides N, E, S, W, or null. */
  squarePrints(x: number, y: number): [number | null, number | null, number | null, number | null];
  marker(i: number): string | null;
  print(i: number): EdgePrint;
  bigcity(i: number): BigCity;
  piece(i: number): Piece;
  feature(i: number): Feature;
  contact(i: number): number;
  ferry(i: number): Ferry;
  island(i: number): Island;
  tileset(i: number): Tileset;
  tile(i: number): Tile;
  deckEntry(i: number): DeckEntry;
}

/** Checks bytes (a `carcamap export --format bin` file) and opens them:
 * an ArrayBuffer or any view of one (typed array, Buffer, DataView); anything
 * else is a TypeError, a file that is not a valid map a CmapError. */
export function openMap(bytes: ArrayBuffer | ArrayBufferView): CmapMap;

/** null for a whole number outside 0..11. */
export function slotName(bit: number): string | null;
/** Quarter turns clockwise (any whole number); slots 0..4095, side 0..3,
 * bit 0..11, else a RangeError. */
export function slotsRotate(slots: number, turns: number): number;
export function sideRotate(side: number, turns: number): number;
export function sideOpposite(side: number): number;
export function slotFacing(bit: number): number;
