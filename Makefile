# SPDX-License-Identifier: MIT
# carcamap: one non-recursive Makefile.
#   make                 library + command into build/
#   make test            unit (cmocka), scenario and CLI golden tests
#   make maps            the main job: compile, check and render the bundled maps
#   make bench           benchmarks (figures and ratios)
#   make SAN=address,undefined test   the same tests in a sanitizer tree
#   make install PREFIX=/usr/local DESTDIR=
# Missing Debian build dependencies are installed by tools/configure.sh
# (as root), which also writes build/config.mk with the flags.

.DEFAULT_GOAL := all
SAN ?=
V ?= 0
PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc
CFLAGS ?= -O2 -g
VERSION := 0.1.0

comma := ,
ifeq ($(strip $(SAN)),)
O := build
SANFLAGS :=
else
O := build/san-$(subst $(comma),-,$(SAN))
SANFLAGS := -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

CONFIG := build/config.mk
ifeq ($(filter clean,$(MAKECMDGOALS)),)
include $(CONFIG)
endif
$(CONFIG): tools/configure.sh
	$(Q)sh tools/configure.sh $@

WARN := -std=c11 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
        -Wmissing-prototypes -Wvla -Wformat=2
ALL_CPPFLAGS := -Ilib/include -Ilib -I$(O)/gen -D_POSIX_C_SOURCE=200809L $(CPPFLAGS)
ALL_CFLAGS := $(WARN) $(CFLAGS) $(SANFLAGS) $(DEP_CFLAGS) -MMD -MP
ALL_LDFLAGS := $(SANFLAGS) $(LDFLAGS)

# Layers (README tour): base, model, engine, check, export, io; the client
# reader (lib/reader) is never part of libcarcamap.
LAYERS := base model engine check export io
LIB_SRC := $(sort $(foreach l,$(LAYERS),$(wildcard lib/$(l)/*.c)))
SCHEMAS := $(sort $(wildcard schemas/*.xsd schemas/*.sql))
LIB_OBJ := $(LIB_SRC:%.c=$(O)/obj/%.o) $(O)/obj/gen/schemas.o
LIB := $(O)/libcarcamap.a
TOOL_SRC := $(sort $(wildcard tools/*.c))
TOOL_OBJ := $(TOOL_SRC:%.c=$(O)/obj/%.o)
BIN := $(O)/carcamap

UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_UTIL_SRC := $(sort $(wildcard tests/unit/util_*.c tests/support/*.c))
UNIT_UTIL_OBJ := $(UNIT_UTIL_SRC:%.c=$(O)/obj/%.o)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(O)/tests/%)
SCEN_BIN := $(if $(wildcard tests/scenarios/runner.c),$(O)/tests/scenario_runner)
BENCH_SRC := $(sort $(wildcard tests/bench/bench_*.c))
BENCH_BIN := $(BENCH_SRC:tests/bench/%.c=$(O)/bench/%)

.SECONDARY:
.PHONY: all test test-deps headers-test unit-test cli-test scenario-test export-test bench maps install clean
all: $(BIN)

$(O)/obj/%.o: %.c $(CONFIG)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

# The XSDs and the pack schema (pack.sql) are compiled into the library: the
# installed command needs no source tree.
$(O)/gen/schemas.c: $(SCHEMAS) tools/embed.sh
	@mkdir -p $(dir $@)
	$(Q)sh tools/embed.sh $(SCHEMAS) > $@.tmp && mv $@.tmp $@
$(O)/obj/gen/schemas.o: $(O)/gen/schemas.c $(CONFIG)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Wno-missing-prototypes -c $< -o $@

# The installed command finds the bundled tile sets here.
TILESET_DIR := $(PREFIX)/share/carcamap/tilesets
$(O)/obj/tools/cli.o: ALL_CPPFLAGS += -DCM_TILESET_DIR='"$(TILESET_DIR)"'

$(LIB): $(LIB_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(BIN): $(TOOL_OBJ) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(TOOL_OBJ) $(LIB) $(DEP_LIBS)

$(O)/tests/%: $(O)/obj/tests/unit/%.o $(UNIT_UTIL_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $< $(UNIT_UTIL_OBJ) $(LIB) $(DEP_LIBS) $(CMOCKA_LIBS)
$(O)/tests/scenario_runner: $(O)/obj/tests/scenarios/runner.o $(O)/obj/tests/support/scenario.o $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $< $(O)/obj/tests/support/scenario.o $(LIB) $(DEP_LIBS) $(CMOCKA_LIBS)
$(O)/bench/%: $(O)/obj/tests/bench/%.o $(O)/obj/tests/support/scenario.o $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $< $(O)/obj/tests/support/scenario.o $(LIB) $(DEP_LIBS)

$(O)/obj/tests/%.o: ALL_CFLAGS += $(CMOCKA_CFLAGS)
$(O)/obj/tests/%.o: ALL_CPPFLAGS += -Itests/support

test: headers-test unit-test scenario-test cli-test export-test
# The tools the tests run (Tiled, jsonschema, sqlite3) are installed here,
# not by the build: using carcamap needs none of them.
test-deps:
	$(Q)sh tools/configure.sh test
unit-test scenario-test cli-test export-test: | test-deps
# Every public header compiles on its own (STYLE.md "Headers").
HEADERS := $(sort $(wildcard lib/include/carcamap/*.h))
headers-test: $(HEADERS:lib/include/carcamap/%.h=$(O)/hdr/%.ok)
$(O)/hdr/%.ok: lib/include/carcamap/%.h $(CONFIG)
	@mkdir -p $(dir $@)
	$(Q)printf '#include <carcamap/%s.h>\n' $* | $(CC) -Ilib/include $(WARN) -fsyntax-only -x c - && touch $@
unit-test: $(UNIT_BIN) $(BIN)
	$(Q)fail=0; for t in $(UNIT_BIN); do echo "== $$t"; $$t || fail=1; done; exit $$fail
scenario-test: $(SCEN_BIN) $(BIN)
	$(Q)$(if $(SCEN_BIN),$(SCEN_BIN) tests/scenarios,true)
cli-test: $(BIN)
	$(Q)sh tests/cli/run.sh $(BIN)
# Export samples against the JSON Schema, Tiled and a C99 build of the reader.
export-test: $(O)/tests/test_export $(BIN)
	$(Q)CC='$(CC)' sh tests/export/run.sh $(O)
	$(Q)sh tests/export/tiled_roundtrip.sh $(BIN)

bench: $(BENCH_BIN) $(BIN)
	$(Q)for b in $(BENCH_BIN); do echo "== $$b"; $$b || exit 1; done

# The main job on the bundled data (see README).
maps: $(BIN)
	$(Q)sh tools/maps.sh $(BIN) $(O)

$(O)/carcamap.pc: Makefile
	@mkdir -p $(dir $@)
	$(Q)printf 'prefix=%s\nincludedir=$${prefix}/include\nlibdir=$${prefix}/lib\n\nName: carcamap\nDescription: Carcassonne Maps boards, tile sets and rules engine\nVersion: %s\nRequires.private: libxml-2.0 libpng sqlite3 zlib\nCflags: -I$${includedir}\nLibs: -L$${libdir} -lcarcamap\nLibs.private: -lm\n' '$(PREFIX)' '$(VERSION)' > $@

install: $(BIN) $(LIB) $(O)/carcamap.pc
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	  $(DESTDIR)$(PREFIX)/include/carcamap $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/carcamap
	install -m 644 $(LIB) $(DESTDIR)$(PREFIX)/lib/libcarcamap.a
	install -m 644 lib/include/carcamap/*.h $(DESTDIR)$(PREFIX)/include/carcamap/
	install -m 644 $(O)/carcamap.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/carcamap.pc
	install -m 644 tools/carcamap.1 $(DESTDIR)$(PREFIX)/share/man/man1/carcamap.1
	install -d $(DESTDIR)$(TILESET_DIR)
	install -m 644 maps/tilesets/*.xml maps/tilesets/carcamap-kinds.tsx maps/tilesets/carcamap-kinds.png \
	  maps/tilesets/carcamap.tiled-project $(DESTDIR)$(TILESET_DIR)/

clean:
	rm -rf build

-include $(shell find $(O)/obj -name '*.d' 2>/dev/null)

# ===========================================================================
# Hostile input: fuzzing, valgrind and the CI sequence. This block stands
# alone (tests/fuzz/ owns it); nothing above depends on it.
#   make fuzz FUZZ_SECONDS=60   build every tests/fuzz/fuzz_*.c harness with
#                               clang -fsanitize=fuzzer,address,undefined
#                               under build/fuzz/ and run each for that long
#   make fuzz-smoke             the same, FUZZ_SMOKE_SECONDS (15) each
#   make fuzz-build             build the harnesses only
#   make cli-valgrind           the CLI golden tests under valgrind
#   make ci                     test, SAN test, cli-valgrind, fuzz-smoke
# clang and valgrind are installed on demand (tools/configure.sh fuzz|valgrind).
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 15
FZ := build/fuzz
FUZZ_SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# clang also flags vsnprintf(fmt) in a va_list wrapper, which gcc (the main
# build) accepts: the formats are checked there.
FUZZ_CFLAGS := $(WARN) -Wno-format-nonliteral -O1 -g $(FUZZ_SANFLAGS) -fsanitize=fuzzer-no-link $(DEP_CFLAGS) -MMD -MP
FUZZ_CPPFLAGS := -Ilib/include -Ilib -D_POSIX_C_SOURCE=200809L
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(FZ)/%)
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FZ)/obj/%.o) $(FZ)/obj/gen/schemas.o
FUZZ_LIB := $(FZ)/libcarcamap.a
FUZZ_TOOLS := $(FZ)/.tools-ok

.PHONY: fuzz fuzz-smoke fuzz-build cli-valgrind ci
$(FUZZ_TOOLS): tools/configure.sh
	@mkdir -p $(dir $@)
	$(Q)sh tools/configure.sh fuzz && touch $@
$(FZ)/obj/%.o: %.c $(CONFIG) | $(FUZZ_TOOLS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZCC  $<")
	$(Q)$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) -c $< -o $@
$(FZ)/gen/schemas.c: $(SCHEMAS) tools/embed.sh
	@mkdir -p $(dir $@)
	$(Q)sh tools/embed.sh $(SCHEMAS) > $@.tmp && mv $@.tmp $@
$(FZ)/obj/gen/schemas.o: $(FZ)/gen/schemas.c $(CONFIG) | $(FUZZ_TOOLS)
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) -Wno-missing-prototypes -c $< -o $@
$(FUZZ_LIB): $(FUZZ_LIB_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^
# A harness that no longer matches an API must fail to build, not fuzz garbage.
$(FZ)/obj/tests/fuzz/%.o: FUZZ_CFLAGS += -Werror
$(FZ)/fuzz_%: $(FZ)/obj/tests/fuzz/fuzz_%.o $(FUZZ_LIB)
	@$(if $(Q),echo "  FUZZLD  $@")
	$(Q)$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SANFLAGS) -o $@ $< $(FUZZ_LIB) $(DEP_LIBS)

# Seeds for the pack and binary readers are written by the normal library.
SEEDGEN := $(O)/tests/fuzz-seedgen
$(SEEDGEN): $(O)/obj/tests/fuzz/seedgen.o $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $< $(LIB) $(DEP_LIBS)

fuzz-build: $(FUZZ_BIN) $(SEEDGEN)
fuzz: fuzz-build
	$(Q)SEEDGEN=$(SEEDGEN) sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_BIN)
fuzz-smoke: fuzz-build
	$(Q)SEEDGEN=$(SEEDGEN) sh tests/fuzz/run.sh $(FUZZ_SMOKE_SECONDS) $(FUZZ_BIN)

cli-valgrind: $(BIN)
	$(Q)sh tools/configure.sh valgrind
	$(Q)sh tests/fuzz/cli-valgrind.sh $(BIN)

# What CI runs, in order; each step in its own make so that SAN applies to one.
ci:
	$(Q)$(MAKE) --no-print-directory test
	$(Q)$(MAKE) --no-print-directory SAN=address,undefined test
	$(Q)$(MAKE) --no-print-directory cli-valgrind
	$(Q)$(MAKE) --no-print-directory fuzz-smoke

-include $(shell find $(FZ)/obj -name '*.d' 2>/dev/null)
# ===========================================================================
