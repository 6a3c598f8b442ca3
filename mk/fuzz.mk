# mk/fuzz.mk: libFuzzer targets for every parser of untrusted input
# (tests/fuzz/fuzz_NAME.c, one target each; tests/fuzz/README.md).
#
#   make fuzz            build-fuzz/fuzz/fuzz_NAME, with clang and
#                        -fsanitize=fuzzer,address,undefined
#   bench/fuzz.sh SECS   runs each target (tests/e2e/t060-fuzz.sh: a smoke run)
#
# The objects of src/ are compiled again in build-fuzz/ with the fuzzer's
# coverage instrumentation (fuzzer-no-link), so the targets link the same
# code jostle runs. Needs clang and its fuzzer runtime (Debian:
# libclang-rt-14-dev; scripts/setup.sh installs both).

FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)

ifeq ($(SAN),fuzz)
OPT := -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
       -fno-sanitize-recover=undefined
endif

.PHONY: fuzz fuzz-targets
fuzz:
	$(MAKE) BUILD=build-fuzz SAN=fuzz CC=clang fuzz-targets

fuzz-targets: $(FUZZ_BIN)

$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(LIBOBJ)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itests/fuzz $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $< $(LIBOBJ) $(LDLIBS)
