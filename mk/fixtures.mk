# mk/fixtures.mk: fixtures that are not one program per file.
#
# libsite_race.so: tests/fixtures/site_race.c as a shared library, loaded by
# tests/fixtures/py_site_race.py through ctypes (jostle localize on a Python
# program). Like the preload libraries it is built with the plain flags in
# both builds, so that python3 loads it without the ASan runtime.
#
# static_hello: a statically linked program (nothing for a preload library
# to interpose), when the C library's static archive is installed.

FIX_SITE_LIB := $(BUILD)/fixtures/libsite_race.so
FIX_STATIC   := $(BUILD)/fixtures/static_hello

all: $(FIX_SITE_LIB) $(FIX_STATIC)

$(FIX_SITE_LIB): tests/fixtures/site_race.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -std=c17 -g -O2 $(WARN) -DSITE_RACE_LIBRARY -fPIC -shared \
	    -fvisibility=hidden -o $@ $< -ldl -lpthread

$(FIX_STATIC): tests/fixtures/cpuinfo.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -std=c17 -O2 -static -o $@ $< -lpthread 2>/dev/null || \
	    { rm -f $@; echo "mk/fixtures.mk: no static C library: $@ not built (t850 skips)"; }
