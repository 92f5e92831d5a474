-- SPDX-License-Identifier: MIT
-- carcamap map pack, schema version 4 (schemas/pack.md documents it).
-- This file is the source of truth: the library embeds it and runs it to
-- create a pack, and compares an opened pack's tables against it.
-- Every table is STRICT; kinds, sides and editions are stored as their
-- names, slot sets and feature sets as integer bit masks.
PRAGMA page_size = 4096;
PRAGMA application_id = 1128353104; -- 0x43414D50, 'CAMP'
PRAGMA user_version = 4; -- format 4: tables and hash of format 3, map_binary holds CMAP 2.0 (format_version 2)

CREATE TABLE pack_meta (
	key TEXT PRIMARY KEY NOT NULL,
	value TEXT NOT NULL
) STRICT;

-- Tile sets -----------------------------------------------------------------

CREATE TABLE tilesets (
	id TEXT PRIMARY KEY NOT NULL,
	name TEXT,
	base INTEGER NOT NULL CHECK (base IN (0, 1)),
	total_c1 INTEGER,             -- declared totals; NULL when not declared
	total_c2 INTEGER,
	total_c3 INTEGER
) STRICT;

CREATE TABLE tile_types (
	tileset_id TEXT NOT NULL REFERENCES tilesets (id),
	seq INTEGER NOT NULL,         -- position in the set, 0-based
	id TEXT NOT NULL,
	name TEXT,
	count_c1 INTEGER NOT NULL,
	count_c2 INTEGER NOT NULL,
	count_c3 INTEGER NOT NULL,
	start INTEGER NOT NULL CHECK (start IN (0, 1)),
	PRIMARY KEY (tileset_id, seq),
	UNIQUE (tileset_id, id)
) STRICT;

CREATE TABLE features (
	tileset_id TEXT NOT NULL,
	tile_seq INTEGER NOT NULL,
	seq INTEGER NOT NULL,         -- feature index on the tile (touches and contacts use it)
	kind TEXT NOT NULL,           -- road city field monastery garden abbey
	local_id TEXT,
	slots INTEGER NOT NULL CHECK (slots BETWEEN 0 AND 4095),
	arms INTEGER NOT NULL,
	cathedral INTEGER NOT NULL CHECK (cathedral IN (0, 1)),
	inn INTEGER NOT NULL CHECK (inn IN (0, 1)),
	good TEXT,                    -- wine grain cloth, or NULL
	touches INTEGER NOT NULL,     -- field: bit i = touches feature i (a city)
	PRIMARY KEY (tileset_id, tile_seq, seq),
	FOREIGN KEY (tileset_id, tile_seq) REFERENCES tile_types (tileset_id, seq)
) STRICT;

CREATE TABLE contacts (
	tileset_id TEXT NOT NULL,
	tile_seq INTEGER NOT NULL,
	seq INTEGER NOT NULL,
	features INTEGER NOT NULL,    -- bit i = feature i takes part
	PRIMARY KEY (tileset_id, tile_seq, seq),
	FOREIGN KEY (tileset_id, tile_seq) REFERENCES tile_types (tileset_id, seq)
) STRICT;

-- Maps ----------------------------------------------------------------------

CREATE TABLE maps (
	id TEXT PRIMARY KEY NOT NULL,
	name TEXT,
	cols INTEGER NOT NULL,
	rows INTEGER NOT NULL,
	starts_used INTEGER NOT NULL,
	tiles_min INTEGER NOT NULL,
	tiles_max INTEGER NOT NULL,
	followers INTEGER NOT NULL,
	edition TEXT NOT NULL,        -- C1 C2 C3
	tiny_city INTEGER NOT NULL CHECK (tiny_city IN (0, 1)),
	farmers TEXT NOT NULL,        -- C1 C2
	farmers_bigcity INTEGER NOT NULL CHECK (farmers_bigcity IN (0, 1)),
	town_extra_turn INTEGER NOT NULL CHECK (town_extra_turn IN (0, 1)),
	town_cost INTEGER NOT NULL CHECK (town_cost IN (0, 1)),
	town_road_bonus INTEGER NOT NULL CHECK (town_road_bonus IN (0, 1)),
	abbey_edge INTEGER NOT NULL CHECK (abbey_edge IN (0, 1)),
	image TEXT,                   -- annotated image path as written in the descriptor
	legend TEXT,                  -- legend path as written
	hash BLOB NOT NULL CHECK (length(hash) = 32) -- SHA-256 of the logical content
) STRICT;

CREATE TABLE islands (
	map_id TEXT NOT NULL REFERENCES maps (id),
	seq INTEGER NOT NULL,         -- island index (squares.island)
	name TEXT,                    -- island id used by squares and the legend
	title TEXT,                   -- display name ("Mallorca")
	PRIMARY KEY (map_id, seq)
) STRICT;

CREATE TABLE bigcities (
	map_id TEXT NOT NULL REFERENCES maps (id),
	seq INTEGER NOT NULL,         -- big city index (squares.bigcity)
	name TEXT,
	PRIMARY KEY (map_id, seq)
) STRICT;

-- Format 2: the kind of every square of a map, one character per square
-- as in a descriptor's grid (schemas/map.md: . # S T B ~ L I H), cols
-- characters and a newline per row, rows top to bottom; and the kinds of
-- its four edge prints, a newline after each row's cols squares: from
-- format 4 one '.' for a square without a print, four characters for any
-- other (sides N E S W: - none, n neutral, r road, c city; never ----);
-- in formats 2 and 3 four characters for every square. A square with anything else on it (a name, arms, an island, a big
-- city, markers, a print with arms or a label) also has a row in squares.
CREATE TABLE map_grids (
	map_id TEXT PRIMARY KEY NOT NULL REFERENCES maps (id),
	kinds TEXT NOT NULL,
	prints TEXT NOT NULL
) STRICT;

CREATE TABLE squares (
	map_id TEXT NOT NULL REFERENCES maps (id),
	x INTEGER NOT NULL,
	y INTEGER NOT NULL,
	kind TEXT NOT NULL,           -- land start town bigcity waves landmark island half (none: see pack.md)
	name TEXT,
	arms INTEGER NOT NULL,
	island INTEGER,               -- index into islands, or NULL
	bigcity INTEGER,              -- index into bigcities, or NULL
	PRIMARY KEY (map_id, y, x)
) STRICT;

CREATE TABLE square_markers (
	map_id TEXT NOT NULL,
	x INTEGER NOT NULL,
	y INTEGER NOT NULL,
	seq INTEGER NOT NULL,
	text TEXT NOT NULL,
	PRIMARY KEY (map_id, y, x, seq),
	FOREIGN KEY (map_id, y, x) REFERENCES squares (map_id, y, x)
) STRICT;

CREATE TABLE edge_prints (
	map_id TEXT NOT NULL,
	x INTEGER NOT NULL,
	y INTEGER NOT NULL,
	side TEXT NOT NULL,           -- N E S W
	kind TEXT NOT NULL,           -- none neutral road city
	arms INTEGER NOT NULL,
	label TEXT,
	PRIMARY KEY (map_id, y, x, side),
	FOREIGN KEY (map_id, y, x) REFERENCES squares (map_id, y, x)
) STRICT;

CREATE TABLE bigcity_pieces (
	map_id TEXT NOT NULL,
	bigcity INTEGER NOT NULL,
	seq INTEGER NOT NULL,
	x INTEGER NOT NULL,
	y INTEGER NOT NULL,
	PRIMARY KEY (map_id, bigcity, seq),
	FOREIGN KEY (map_id, bigcity) REFERENCES bigcities (map_id, seq)
) STRICT;

CREATE TABLE bigcity_features (
	map_id TEXT NOT NULL,
	bigcity INTEGER NOT NULL,
	piece INTEGER NOT NULL,
	seq INTEGER NOT NULL,
	kind TEXT NOT NULL,
	local_id TEXT,
	slots INTEGER NOT NULL CHECK (slots BETWEEN 0 AND 4095),
	arms INTEGER NOT NULL,
	cathedral INTEGER NOT NULL CHECK (cathedral IN (0, 1)),
	inn INTEGER NOT NULL CHECK (inn IN (0, 1)),
	good TEXT,
	touches INTEGER NOT NULL,
	PRIMARY KEY (map_id, bigcity, piece, seq),
	FOREIGN KEY (map_id, bigcity, piece) REFERENCES bigcity_pieces (map_id, bigcity, seq)
) STRICT;

CREATE TABLE bigcity_contacts (
	map_id TEXT NOT NULL,
	bigcity INTEGER NOT NULL,
	piece INTEGER NOT NULL,
	seq INTEGER NOT NULL,
	features INTEGER NOT NULL,
	PRIMARY KEY (map_id, bigcity, piece, seq),
	FOREIGN KEY (map_id, bigcity, piece) REFERENCES bigcity_pieces (map_id, bigcity, seq)
) STRICT;

CREATE TABLE ferries (
	map_id TEXT NOT NULL REFERENCES maps (id),
	seq INTEGER NOT NULL,
	name TEXT,
	x1 INTEGER NOT NULL,
	y1 INTEGER NOT NULL,
	side1 TEXT NOT NULL,
	x2 INTEGER NOT NULL,
	y2 INTEGER NOT NULL,
	side2 TEXT NOT NULL,
	arms INTEGER NOT NULL,
	PRIMARY KEY (map_id, seq)
) STRICT;

CREATE TABLE deck_entries (
	map_id TEXT NOT NULL REFERENCES maps (id),
	seq INTEGER NOT NULL,
	tileset_id TEXT NOT NULL REFERENCES tilesets (id),
	tile_id TEXT,                 -- NULL: the whole set
	count INTEGER NOT NULL,       -- -1: as in the set
	PRIMARY KEY (map_id, seq),
	FOREIGN KEY (tileset_id, tile_id) REFERENCES tile_types (tileset_id, id)
) STRICT;

-- Who made a map (the descriptor's <about>, schemas/pack.md "Map metadata"):
-- one row per field given. Added to format 1 without a version bump: a
-- pack written before it lacks the table and reads as maps without it.
CREATE TABLE map_about (
	map_id TEXT NOT NULL REFERENCES maps (id),
	key TEXT NOT NULL,            -- title author licence version description homepage
	value TEXT NOT NULL,
	PRIMARY KEY (map_id, key)
) STRICT;

-- Per-map client binary encoding (schemas/export-bin.md), per major version
-- of the encoding; compile stores the current one (2 in format 4).
CREATE TABLE map_binary (
	map_id TEXT NOT NULL REFERENCES maps (id),
	format_version INTEGER NOT NULL,
	data BLOB NOT NULL,
	PRIMARY KEY (map_id, format_version)
) STRICT;

-- Prints on a tile type that the rules ignore (a mini's gold mine, mage's
-- hat, robber or crop circle; schemas/tileset.md "Markers"), in file order.
-- Added to format 4 without a version bump, as map_about was to format 1:
-- a pack written before it lacks the table and reads as tiles without.
CREATE TABLE tile_markers (
	tileset_id TEXT NOT NULL,
	tile_seq INTEGER NOT NULL,
	seq INTEGER NOT NULL,
	text TEXT NOT NULL,
	PRIMARY KEY (tileset_id, tile_seq, seq),
	FOREIGN KEY (tileset_id, tile_seq) REFERENCES tile_types (tileset_id, seq)
) STRICT;
