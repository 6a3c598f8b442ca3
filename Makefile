# jostle build. A plain Makefile: every dependency comes from Debian, the
# tree is small, and make is on every machine we target (see README).
#
#   make                 build/jostle, the preload libraries, the zoo, fixtures
#   make asan            the same under ASan+UBSan, in build-asan/
#   make check           normal + ASan builds and the fuzz targets, then every test
#   make fuzz            the libFuzzer targets in build-fuzz/ (mk/fuzz.mk)
#   make install         PREFIX=/usr/local DESTDIR=
#
# Sources are found by wildcard so that a new module is one new file:
#   src/STAGE/*.c          -> the jostle binary (src/cli/main.c only dispatches;
#                             docs/ARCHITECTURE.md: the stages and who includes whom)
#   tests/unit/test_*.c    -> one test binary each, linked with src/ minus main
#   tests/fixtures/*.c     -> deterministic fixture programs
#   zoo/*.c                -> the race zoo, one program each
#   preload/NAME.c         -> libjostle-NAME.so, one preload library each
#                             (chaos: --chaos sync; crash: the crash handler)
# mk/*.mk may add rules for anything that does not fit those shapes.

BUILD   ?= build
SAN     ?=
PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
VERSION := 0.2.0

PKGS := libcjson libpcre2-8 libdw zlib expat
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wvla -Wwrite-strings \
        -fno-common -Wno-missing-field-initializers
ifeq ($(CI),true)
WARN += -Werror
endif
ifeq ($(WERROR),1)
WARN += -Werror
endif

OPT := -O2
ifeq ($(SAN),1)
OPT := -O1 -fsanitize=address,undefined -fno-omit-frame-pointer \
       -fno-sanitize-recover=undefined
endif

CFLAGS  ?=
CPPFLAGS += -D_GNU_SOURCE -DJOSTLE_VERSION='"$(VERSION)"' -iquote src
ALL_CFLAGS = -std=c17 -g $(OPT) $(WARN) $(PKG_CFLAGS) $(CFLAGS)
LDLIBS  += $(PKG_LIBS) -lpthread -lm

SRC      := $(sort $(wildcard src/*/*.c))
OBJ      := $(SRC:%.c=$(BUILD)/obj/%.o)
LIBOBJ   := $(filter-out $(BUILD)/obj/src/cli/main.o,$(OBJ))
UTILOBJ  := $(filter $(BUILD)/obj/src/util/%,$(OBJ))

UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
FIX_SRC  := $(sort $(wildcard tests/fixtures/*.c))
FIX_BIN  := $(FIX_SRC:tests/fixtures/%.c=$(BUILD)/fixtures/%)
ZOO_SRC  := $(sort $(wildcard zoo/*.c))
ZOO_BIN  := $(ZOO_SRC:zoo/%.c=$(BUILD)/zoo/%)
PRE_SRC  := $(sort $(wildcard preload/*.c))
PRE_LIB  := $(PRE_SRC:preload/%.c=$(BUILD)/libjostle-%.so)

.PHONY: all asan check test install clean
all: $(BUILD)/jostle $(PRE_LIB) $(UNIT_BIN) $(FIX_BIN) $(ZOO_BIN)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/jostle: $(OBJ)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(LIBOBJ)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itests/unit $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

# Fixtures and the zoo are the programs under test, not jostle: they are built
# with the same sanitizer setting so that ASan reports can be produced on demand.
$(BUILD)/fixtures/%: tests/fixtures/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -Wno-unused-result -o $@ $< -lpthread -lm

$(BUILD)/zoo/%: zoo/%.c $(wildcard zoo/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Izoo $(ALL_CFLAGS) -o $@ $< -lpthread -lm

# The preload libraries never run under ASan themselves (they are injected
# into other programs), so they always use the plain flags.
$(BUILD)/libjostle-%.so: preload/%.c $(wildcard preload/*.h) $(wildcard src/util/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -std=c17 -g -O2 $(WARN) -fPIC -shared -fvisibility=hidden \
	    -o $@ $< -ldl -lpthread

-include $(wildcard mk/*.mk)

asan:
	$(MAKE) BUILD=build-asan SAN=1

check: all
	$(MAKE) BUILD=build-asan SAN=1
	$(MAKE) fuzz
	bash tests/run.sh build build-asan

test: check

install: $(BUILD)/jostle $(PRE_LIB)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/jostle \
	    $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BUILD)/jostle $(DESTDIR)$(PREFIX)/bin/jostle
	$(if $(PRE_LIB),install -m 644 $(PRE_LIB) $(DESTDIR)$(PREFIX)/lib/jostle/)
	install -m 644 docs/jostle.1 $(DESTDIR)$(PREFIX)/share/man/man1/jostle.1

clean:
	rm -rf build build-asan

-include $(OBJ:.o=.d)
