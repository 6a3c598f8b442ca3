# mk/bundle.mk: a relocatable jostle for machines without the -dev packages
# (a CI runner, a GPU box): jostle, its preload libraries and every shared
# library it needs except the C library's own, in one folder with an
# $ORIGIN rpath, and `make bundle` packs it into a tarball.
#
#   $(BUILD)/bundle/jostle-VERSION/            (built by `make`, normal build only)
#       jostle                  linked with DT_RPATH $ORIGIN/lib (DT_RPATH, not
#                               RUNPATH: it also serves libdw's own needs)
#       libjostle-*.so          the preload libraries, found next to jostle
#       lib/                    libcjson, libpcre2-8, libdw, libelf, libz, ...
#       jostle.1
#   $(BUILD)/jostle-VERSION-ARCH-linux.tar.gz   (make bundle)
#
# scripts/bundle.sh copies the libraries ldd names and then checks, with a
# scrubbed environment, that every library resolves into lib/ or to the
# base system (libc, libm, libpthread, libdl, librt, the loader).

BUNDLE_NAME := jostle-$(VERSION)
BUNDLE_DIR  := $(BUILD)/bundle/$(BUNDLE_NAME)
BUNDLE_TAR  := $(BUILD)/$(BUNDLE_NAME)-$(shell uname -m)-linux.tar.gz

.PHONY: bundle
ifeq ($(SAN),)
all: $(BUNDLE_DIR)/jostle
endif

$(BUILD)/bundle/jostle.rpath: $(OBJ)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS) -Wl,--disable-new-dtags -Wl,-rpath,'$$ORIGIN/lib'

$(BUNDLE_DIR)/jostle: $(BUILD)/bundle/jostle.rpath $(PRE_LIB) docs/jostle.1 scripts/bundle.sh
	bash scripts/bundle.sh $< $(BUNDLE_DIR) $(PRE_LIB) docs/jostle.1

bundle: $(BUNDLE_DIR)/jostle
	tar -C $(BUILD)/bundle -czf $(BUNDLE_TAR) $(BUNDLE_NAME)
	@echo "bundle: $(BUNDLE_TAR)"
