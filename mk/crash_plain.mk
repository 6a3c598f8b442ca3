# mk/crash_plain.mk: the crash fixture built without sanitizers, in both
# builds. The crash handler's stress test (t545) is about how jostle (of
# either build) handles records; an ASan-instrumented program would spend
# the test's time starting ASan, 8 times over.

CRASH_PLAIN := $(BUILD)/fixtures/crash-plain

all: $(CRASH_PLAIN)

$(CRASH_PLAIN): tests/fixtures/crash.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -std=c17 -g -O2 $(WARN) -Wno-unused-result -o $@ $< -lpthread -lm
