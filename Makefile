# SPDX-License-Identifier: MIT
# carcamap: one non-recursive Makefile.
#   make                 library + command into build/
#   make test            unit (cmocka), scenario and CLI golden tests
#   make maps            the main job: compile, check and render the bundled maps
#   make bench           benchmarks (figures and ratios)
#   make SAN=address,undefined test   the same tests in a sanitizer tree
#   make install PREFIX=/usr/local DESTDIR=   (uninstall: the same, reversed)
#   make dist            build/carcamap-VERSION.tar.gz
#   make configure       find (as root: install) the build dependencies
#   make test-deps       install the test tools (TEST_DEPS="test fuzz valgrind")
# tools/configure.sh writes build/config.mk with the flags. It runs apt-get
# (as root) only for the configure and test-deps steps: when the goals are
# configure, test-deps, test, maps or ci (the README's two commands), never
# for others, which name what is missing and stop.

.DEFAULT_GOAL := all
SAN ?=
V ?= 0
PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc
CFLAGS ?= -O2 -g
# The one place the version is written is lib/include/carcamap/version.h
# (CM_VERSION_MAJOR, _MINOR, _PATCH, which clients see at compile time): cm_version(), the
# soname, the man pages, carcamap.pc and the dist tarball take it from there.
VERSION := $(shell sed -n 's/^\#define CM_VERSION_[MP][A-Z]* \([0-9][0-9]*\)$$/\1/p' lib/include/carcamap/version.h | paste -sd. -)
SOMAJOR := $(firstword $(subst ., ,$(VERSION)))

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
INSTALL_GOALS := configure test-deps test maps ci
CONFIGURE_CHECK := $(if $(filter $(INSTALL_GOALS),$(MAKECMDGOALS)),,--check)
$(CONFIG): tools/configure.sh
	$(Q)sh tools/configure.sh $(CONFIGURE_CHECK) $@
.PHONY: configure
configure:
	$(Q)sh tools/configure.sh $(CONFIG)

WARN := -std=c11 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
        -Wmissing-prototypes -Wvla -Wformat=2 \
        -Werror=int-conversion -Werror=incompatible-pointer-types
ALL_CPPFLAGS := -Ilib/include -Ilib -I$(O)/gen -D_POSIX_C_SOURCE=200809L $(CPPFLAGS)
# In CI (CI=true, as CI services set it, or `make ci`) a new warning fails
# the build; users building a release are not stopped by a newer compiler's.
WERROR := $(if $(filter true 1 yes,$(CI)),-Werror)
ALL_CFLAGS := $(WARN) $(WERROR) $(CFLAGS) $(SANFLAGS) $(DEP_CFLAGS) -pthread -MMD -MP
ALL_LDFLAGS := $(SANFLAGS) $(LDFLAGS) -pthread

# Layers (README tour): base, model, engine, check, export, io; the client
# reader (lib/reader) is never part of libcarcamap.
LAYERS := base model engine check export io
LIB_SRC := $(sort $(foreach l,$(LAYERS),$(wildcard lib/$(l)/*.c)))
SCHEMAS := $(sort $(wildcard schemas/*.xsd schemas/*.sql))
LIB_OBJ := $(LIB_SRC:%.c=$(O)/obj/%.o) $(O)/obj/gen/schemas.o
LIB := $(O)/libcarcamap.a
HEADERS := $(sort $(wildcard lib/include/carcamap/*.h))
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

SOLIB := $(O)/libcarcamap.so.$(VERSION)
SONAME := libcarcamap.so.$(SOMAJOR)
GEN_H := $(O)/gen/cm_paths.h

.SECONDARY:
.PHONY: all test test-deps headers-test unit-test cli-test scenario-test export-test render-test bench maps install clean
.PHONY: uninstall dist lib-test install-test dist-test layers-test link-test FORCE
all: $(BIN) $(SOLIB)

# Generated headers carry what the Makefile decides (the version, PREFIX);
# each is rewritten only when its text changes, so a new PREFIX rebuilds
# what uses it without make clean, and an unchanged one rebuilds nothing.
$(O)/gen/cm_paths.h build/fuzz/gen/cm_paths.h: FORCE
	@mkdir -p $(dir $@)
	@printf '#define CM_TILESET_DIR "%s"\n#define CM_FONT_DIR "%s"\n' '$(TILESET_DIR)' '$(FONT_DIR)' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
FORCE:

$(O)/obj/%.o: %.c $(CONFIG) | $(GEN_H)
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

# The installed command finds the bundled tile sets here ($(O)/gen/cm_paths.h).
DATADIR := $(PREFIX)/share/carcamap
TILESET_DIR := $(DATADIR)/tilesets

# One set of objects, position-independent, makes both libraries.
$(LIB_OBJ): ALL_CFLAGS += -fPIC
$(LIB): $(LIB_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

# The shared library exports the functions the public headers declare and
# nothing else (tools/exports.sh writes the version script from them).
$(O)/carcamap.sym: $(HEADERS) tools/exports.sh
	@mkdir -p $(dir $@)
	$(Q)sh tools/exports.sh $(HEADERS) > $@.tmp && mv $@.tmp $@
$(SOLIB): $(LIB_OBJ) $(O)/carcamap.sym
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared $(ALL_LDFLAGS) -Wl,-soname,$(SONAME) -Wl,--version-script,$(O)/carcamap.sym \
	  -Wl,--no-undefined -o $@ $(LIB_OBJ) $(DEP_LIBS)
	$(Q)ln -sf $(notdir $@) $(O)/$(SONAME) && ln -sf $(notdir $@) $(O)/libcarcamap.so

# The command is a client of the library: it sees the public headers only
# (no -Ilib), so it builds against an installed libcarcamap too; layers.sh
# names any private include.
$(TOOL_OBJ): ALL_CPPFLAGS := -Ilib/include -I$(O)/gen -D_POSIX_C_SOURCE=200809L $(CPPFLAGS)
$(BIN): $(TOOL_OBJ) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(TOOL_OBJ) $(LIB) $(DEP_LIBS)

$(O)/tests/%: $(O)/obj/tests/unit/%.o $(UNIT_UTIL_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $< $(UNIT_UTIL_OBJ) $(LIB) $(DEP_LIBS) $(CMOCKA_LIBS)
# test_file makes fsync fail on demand (tests/unit/test_file.c).
$(O)/tests/test_file: ALL_LDFLAGS += -Wl,--wrap=fsync
$(O)/tests/scenario_runner: $(O)/obj/tests/scenarios/runner.o $(O)/obj/tests/support/scenario.o $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $< $(O)/obj/tests/support/scenario.o $(LIB) $(DEP_LIBS) $(CMOCKA_LIBS)
$(O)/bench/%: $(O)/obj/tests/bench/%.o $(O)/obj/tests/support/scenario.o $(O)/obj/tests/support/genmap.o $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $< $(O)/obj/tests/support/scenario.o $(O)/obj/tests/support/genmap.o $(LIB) $(DEP_LIBS)

$(O)/obj/tests/%.o: ALL_CFLAGS += $(CMOCKA_CFLAGS)
$(O)/obj/tests/%.o: ALL_CPPFLAGS += -Itests/support

test: headers-test layers-test link-test unit-test scenario-test cli-test export-test render-test lib-test js-test $(if $(SAN),,install-test dist-test)
# The layers hold (README "Tour"; tools/layers.sh): includes and symbols.
layers-test: $(LIB_OBJ)
	$(Q)sh tools/layers.sh $(O)
# The rules engine links alone: model and engine objects, no libxml2,
# libpng or SQLite (tests/link/engine_alone.c plays a game).
ALONE_OBJ := $(filter $(O)/obj/lib/base/% $(O)/obj/lib/model/% $(O)/obj/lib/engine/%,$(LIB_OBJ))
$(O)/tests/engine_alone: $(O)/obj/tests/link/engine_alone.o $(ALONE_OBJ)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ -lm
link-test: $(O)/tests/engine_alone
	$(Q)$<
# The tools the tests run (Tiled, jsonschema, sqlite3, chromium, npm) are
# installed here, not by the build: using carcamap needs none of them, nor
# do the unit and scenario tests (cmocka is a build dependency). TEST_DEPS
# "fuzz" and "valgrind" add clang and valgrind (make ci asks for them).
TEST_DEPS ?= test
test-deps:
	$(Q)for m in $(TEST_DEPS); do sh tools/configure.sh $$m || exit 1; done
cli-test export-test render-test js-test: | test-deps
# Every public header compiles on its own (STYLE.md "Headers").
headers-test: $(HEADERS:lib/include/carcamap/%.h=$(O)/hdr/%.ok)
$(O)/hdr/%.ok: lib/include/carcamap/%.h $(CONFIG)
	@mkdir -p $(dir $@)
	$(Q)printf '#include <carcamap/%s.h>\ntypedef int cm_header_test; /* a header of macros alone */\n' $* | $(CC) -Ilib/include $(WARN) -fsyntax-only -x c - && touch $@
unit-test: $(UNIT_BIN) $(BIN)
	$(Q)fail=0; for t in $(UNIT_BIN); do echo "== $$t"; $$t || fail=1; done; exit $$fail
scenario-test: $(SCEN_BIN) $(BIN)
	$(Q)$(if $(SCEN_BIN),$(SCEN_BIN) tests/scenarios,true)
cli-test: $(BIN)
	$(Q)sh tests/cli/run.sh $(BIN)
	$(Q)sh tests/cli/examples.sh $(BIN)
# Export samples against the JSON Schema, Tiled and a C99 build of the reader.
export-test: $(O)/tests/test_export $(BIN)
	$(Q)CC='$(CC)' sh tests/export/run.sh $(O)
	$(Q)sh tests/export/tiled_roundtrip.sh $(BIN)
# SVG and HTML pictures of the bundled maps: xmllint, every name as text,
# the pages in headless chromium (tests/render/run.sh).
render-test: $(BIN)
	$(Q)sh tests/render/run.sh $(BIN) $(O)

# The shared library's exports, C++ use of both headers (tests/lib/run.sh).
lib-test: $(SOLIB) $(BIN)
	$(Q)CC='$(CC)' SANFLAGS='$(SANFLAGS)' sh tests/lib/run.sh $(O) $(VERSION)
# The client reader for the web: emscripten builds it into a wasm module,
# staged with its ES-module wrapper and TypeScript declarations as an npm
# package in build/js/pkg (bindings/js/); js-test reads every bundled map
# with it against the JSON export and runs npm pack. Both skip, saying so,
# without emscripten.
.PHONY: js js-test
js:
	$(Q)sh bindings/js/build.sh build $(VERSION)
js-test: $(BIN)
	$(Q)sh bindings/js/test.sh build $(VERSION) $(BIN)
# install, uninstall, pkg-config and the man page example, in a build tree of
# their own (tests/install/run.sh); make dist's tarball builds and tests
# itself (tests/install/dist.sh). Both run after the other tests.
install-test: | unit-test cli-test scenario-test export-test render-test lib-test js-test
	$(Q)CC='$(CC)' sh tests/install/run.sh $(VERSION)
dist-test: | install-test
	$(Q)sh tests/install/dist.sh $(VERSION)

bench: $(BENCH_BIN) $(BIN)
	$(Q)for b in $(BENCH_BIN); do echo "== $$b"; $$b || exit 1; done

# The main job on the bundled data (see README).
maps: $(BIN)
	$(Q)sh tools/maps.sh $(BIN) $(O)

# pkg-config: the shared library by default; --static adds what the archive
# needs (its dependencies' libraries through Requires.private). Rewritten
# when PREFIX or VERSION change.
$(O)/carcamap.pc: FORCE
	@mkdir -p $(dir $@)
	@printf 'prefix=%s\nincludedir=$${prefix}/include\nlibdir=$${prefix}/lib\ndatadir=$${prefix}/share/carcamap\n\nName: carcamap\nDescription: Carcassonne Maps boards, tile sets and rules engine\nVersion: %s\nURL: https://github.com/carcamap/carcamap\nRequires.private: %s\nCflags: -I$${includedir}\nLibs: -L$${libdir} -lcarcamap\nLibs.private: -lm -pthread\n' '$(PREFIX)' '$(VERSION)' '$(DEP_PKGS)' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

# Man pages: carcamap(1) by hand, one carcamap-CMD(1) per command written
# from its --help (tools/help2man.sh), libcarcamap(3) by hand with an example
# that lib-test compiles. The bash completion is written from --help too.
COMMANDS := $(patsubst tools/cmd_%.c,%,$(wildcard tools/cmd_*.c))
MAN1 := $(O)/man/carcamap.1 $(COMMANDS:%=$(O)/man/carcamap-%.1)
$(O)/man/carcamap-%.1: $(BIN) tools/help2man.sh
	@mkdir -p $(dir $@)
	$(Q)sh tools/help2man.sh $(BIN) $* $(VERSION) > $@.tmp && mv $@.tmp $@
$(O)/man/carcamap.1: tools/carcamap.1 $(GEN_H)
	@mkdir -p $(dir $@)
	$(Q)sed '1s/"carcamap [^"]*"/"carcamap $(VERSION)"/' tools/carcamap.1 > $@
$(O)/carcamap.bash: $(BIN) tools/completion.sh
	$(Q)sh tools/completion.sh $(BIN) > $@.tmp && mv $@.tmp $@

# tools/install.sh holds the one list of installed files (README "Install").
INSTALLED := $(BIN) $(LIB) $(SOLIB) $(O)/carcamap.pc $(MAN1) $(O)/carcamap.bash
install: $(INSTALLED)
	$(Q)sh tools/install.sh install $(O) '$(DESTDIR)' '$(PREFIX)' '$(VERSION)'
uninstall: $(INSTALLED)
	$(Q)sh tools/install.sh uninstall $(O) '$(DESTDIR)' '$(PREFIX)' '$(VERSION)'

# The source tarball: the files git tracks or would (or, outside git, the
# tree without build/), under carcamap-VERSION/, with fixed owners, order and times.
DIST := carcamap-$(VERSION)
dist:
	@mkdir -p build
	$(Q){ if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then git ls-files --cached --others --exclude-standard; \
	  else find . -path ./build -prune -o -type f -print | sed 's,^\./,,'; fi; } | LC_ALL=C sort -u | while read -r f; do [ -f "$$f" ] && echo "$$f"; done > build/dist.list
	$(Q)tar --create --gzip --file build/$(DIST).tar.gz --files-from build/dist.list \
	  --transform 's,^,$(DIST)/,' --owner=0 --group=0 --numeric-owner \
	  --mtime=@$$(git log -1 --format=%ct 2>/dev/null || echo 0) --mode=go-w
	@echo "build/$(DIST).tar.gz"

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
# clang and valgrind are checked for (tools/configure.sh fuzz|valgrind) and
# installed by make test-deps TEST_DEPS="fuzz valgrind", which make ci runs.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 15
FZ := build/fuzz
FUZZ_SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# clang also flags vsnprintf(fmt) in a va_list wrapper, which gcc (the main
# build) accepts: the formats are checked there.
FUZZ_CFLAGS := $(WARN) -Wno-format-nonliteral -O1 -g $(FUZZ_SANFLAGS) -fsanitize=fuzzer-no-link $(DEP_CFLAGS) -MMD -MP
FUZZ_CPPFLAGS := -Ilib/include -Ilib -I$(FZ)/gen -D_POSIX_C_SOURCE=200809L
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(FZ)/%)
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FZ)/obj/%.o) $(FZ)/obj/gen/schemas.o
FUZZ_LIB := $(FZ)/libcarcamap.a
FUZZ_TOOLS := $(FZ)/.tools-ok

.PHONY: fuzz fuzz-smoke fuzz-build cli-valgrind ci
$(FUZZ_TOOLS): tools/configure.sh
	@mkdir -p $(dir $@)
	$(Q)sh tools/configure.sh --check fuzz && touch $@ # make test-deps installs
$(FZ)/obj/%.o: %.c $(CONFIG) | $(FUZZ_TOOLS) $(FZ)/gen/cm_paths.h
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
	$(Q)sh tools/configure.sh --check valgrind
	$(Q)CLI_JOBS=$(CI_JOBS) sh tests/fuzz/cli-valgrind.sh $(BIN)

# What CI runs, in order; each step in its own make so that SAN applies to
# one, on every processor (CI_JOBS, default all; a -j given to make wins).
CI_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
CI_J = $(if $(findstring -j,$(MAKEFLAGS)),,-j$(CI_JOBS))
ci:
	$(Q)$(MAKE) --no-print-directory test-deps TEST_DEPS="test fuzz valgrind"
	$(Q)$(MAKE) --no-print-directory $(CI_J) CI=true test
	$(Q)$(MAKE) --no-print-directory $(CI_J) CI=true SAN=address,undefined test
	$(Q)$(MAKE) --no-print-directory $(CI_J) CI=true cli-valgrind
	$(Q)$(MAKE) --no-print-directory $(CI_J) CI=true fuzz-smoke

-include $(shell find $(FZ)/obj -name '*.d' 2>/dev/null)
# ===========================================================================
