/*
 * kernel_bugs: two real GPU bugs for NVIDIA compute-sanitizer, so that
 * jostle's parser reads reports of the real tool (tests/data/cs_*_h200.txt).
 *
 *   kernel_bugs race [--fixed]   a shared-memory race: each thread writes its
 *                                slot, then reads a neighbour's slot in another
 *                                warp without __syncthreads() (racecheck)
 *   kernel_bugs oob [--fixed]    an off-by-one out-of-bounds global write: the
 *                                last thread writes one element past the buffer
 *                                (memcheck)
 *
 * Exit status: 0 when the CUDA calls succeeded (and, for oob, the result is
 * right), 1 when a CUDA call failed or oob's result is wrong, 2 bad usage,
 * 77 no CUDA device. Without a sanitizer both bugs go unnoticed: race does
 * not check its sums (it prints how many are wrong and exits 0, as the code
 * it stands for would), and the stray write lands in allocation padding.
 * racecheck exits 0 after reporting the race unless given --error-exitcode,
 * which is why jostle reads the report (a run whose output holds one fails).
 *
 * Built with nvcc where it exists (mk/cuda.mk, bench/gpu.sh); not part of
 * the C build.
 */
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define N 256

__global__ void neighbour_sum(const int *in, int *out, int fixed)
{
	__shared__ int slot[N];
	int t = threadIdx.x;

	slot[t] = in[t];
	if (fixed)
		__syncthreads();
	out[t] = slot[t] + slot[(t + 32) % N];	/* another warp's slot */
}

__global__ void scale(int *buf, int n, int fixed)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n + (fixed ? 0 : 1))	/* the off-by-one: i == n is past the end */
		buf[i] = 2 * i;
}

static int check(cudaError_t rc, const char *what)
{
	if (rc == cudaSuccess)
		return 0;
	fprintf(stderr, "kernel_bugs: %s: %s (%s)\n", what, cudaGetErrorString(rc), cudaGetErrorName(rc));
	return 1;
}

static int run_race(int fixed)
{
	int host[N], *in, *out;

	for (int i = 0; i < N; i++)
		host[i] = i;
	if (check(cudaMalloc(&in, sizeof(host)), "cudaMalloc") || check(cudaMalloc(&out, sizeof(host)), "cudaMalloc") ||
	    check(cudaMemcpy(in, host, sizeof(host), cudaMemcpyHostToDevice), "cudaMemcpy"))
		return 1;
	neighbour_sum<<<1, N>>>(in, out, fixed);
	if (check(cudaGetLastError(), "launch") || check(cudaDeviceSynchronize(), "cudaDeviceSynchronize") ||
	    check(cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost), "cudaMemcpy"))
		return 1;
	/* Like the code this stands for, it does not check its sums: the race
	 * goes unnoticed (exit 0) unless a sanitizer reports it. */
	int wrong = 0;
	for (int i = 0; i < N; i++)
		wrong += host[i] != i + (i + 32) % N;
	printf("kernel_bugs: race%s: %d sums, %d of them wrong\n", fixed ? " (fixed)" : "", N, wrong);
	return 0;
}

static int run_oob(int fixed)
{
	int *buf, host[N];

	if (check(cudaMalloc(&buf, sizeof(host)), "cudaMalloc"))
		return 1;
	scale<<<2, N>>>(buf, N, fixed);
	if (check(cudaGetLastError(), "launch") || check(cudaDeviceSynchronize(), "cudaDeviceSynchronize") ||
	    check(cudaMemcpy(host, buf, sizeof(host), cudaMemcpyDeviceToHost), "cudaMemcpy"))
		return 1;
	for (int i = 0; i < N; i++)
		if (host[i] != 2 * i) {
			fprintf(stderr, "kernel_bugs: oob: buf[%d] = %d, expected %d\n", i, host[i], 2 * i);
			return 1;
		}
	printf("kernel_bugs: oob%s: %d elements right\n", fixed ? " (fixed)" : "", N);
	return 0;
}

int main(int argc, char **argv)
{
	int fixed = argc == 3 && !strcmp(argv[2], "--fixed");
	int count = 0;

	if ((argc != 2 && !fixed) || (strcmp(argv[1], "race") && strcmp(argv[1], "oob"))) {
		fprintf(stderr, "usage: kernel_bugs race|oob [--fixed]\n");
		return 2;
	}
	if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
		fprintf(stderr, "kernel_bugs: skipped: no CUDA device\n");
		return 77;
	}
	return !strcmp(argv[1], "race") ? run_race(fixed) : run_oob(fixed);
}
