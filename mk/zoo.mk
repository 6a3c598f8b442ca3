# mk/zoo.mk: libzoo.so, the shared-library build of two zoo programs
# (registry_aba, deferred_cleanup) that zoo/python/test_zoo.py loads with
# ctypes. Built in both builds; the ASan one must be loaded into python with
# LD_PRELOAD of libasan (see zoo/README.md).

ZOO_LIB_SRC := zoo/registry_aba.c zoo/deferred_cleanup.c
ZOO_LIB     := $(BUILD)/zoo/libzoo.so

all: $(ZOO_LIB)

$(ZOO_LIB): $(ZOO_LIB_SRC) $(wildcard zoo/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Izoo $(ALL_CFLAGS) -DZOO_LIBRARY -fPIC -shared -fvisibility=hidden \
	    -o $@ $(ZOO_LIB_SRC) -lpthread
