# mk/cuda.mk: zoo/cuda/*.cu, the GPU programs of the zoo (kernel_bugs: real
# reports for compute-sanitizer), built only where nvcc is found (PATH, or
# /usr/local/cuda/bin) and only in the normal build: they are not C17 and
# nothing in the C build needs them. Without nvcc the tests that use them
# say SKIP. NVCC=... picks another compiler; CUDA_ARCH the GPU (sm_90: H100,
# H200), with PTX for newer ones.

NVCC      ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
CUDA_ARCH ?= sm_90
CUDA_SRC  := $(sort $(wildcard zoo/cuda/*.cu))
CUDA_BIN  := $(CUDA_SRC:zoo/cuda/%.cu=$(BUILD)/zoo/%)

ifneq ($(NVCC),)
ifeq ($(SAN),)
all: $(CUDA_BIN)
endif
endif

$(BUILD)/zoo/%: zoo/cuda/%.cu
	@mkdir -p $(@D)
	$(NVCC) -g -lineinfo -arch=$(CUDA_ARCH) -o $@ $<
