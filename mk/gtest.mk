# mk/gtest.mk: tests/fixtures/*.cc, Google Test programs for the per-test
# results of `jostle run --tests` (t650), built where Debian's libgtest-dev
# is installed (scripts/setup.sh installs it); without it the test says SKIP.
# C++ is only ever the language of these fixtures, never of jostle.

GTEST_LIBS := $(shell pkg-config --libs gtest_main 2>/dev/null)
GTEST_SRC  := $(sort $(wildcard tests/fixtures/*.cc))
GTEST_BIN  := $(GTEST_SRC:tests/fixtures/%.cc=$(BUILD)/fixtures/%)
CXX        ?= c++

ifneq ($(GTEST_LIBS),)
all: $(GTEST_BIN)
endif

$(BUILD)/fixtures/%: tests/fixtures/%.cc
	@mkdir -p $(@D)
	$(CXX) -std=c++17 -g $(OPT) -Wall -Wextra -o $@ $< $(GTEST_LIBS)
