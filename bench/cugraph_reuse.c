/*
 * cugraph_reuse: how often the CUDA driver hands out the raw CUgraph value of
 * an embedded child graph that was just destroyed, to the same thread and to
 * another thread. The precondition of seed 000 (zoo/cuda_graph_registry.c):
 * the race needs another thread to get a freed value before its registry
 * entry is retired.
 *
 *     cugraph_reuse THREADS ITERS
 *
 * Each thread embeds its own one-node graph into its own parent graph
 * (cuGraphAddChildGraphNode), reads the embedded graph's raw value
 * (cuGraphChildGraphNodeGetGraph) and destroys the node (cuGraphDestroyNode),
 * ITERS times. Every value and every free is logged with a global sequence
 * number (a free before the driver call, a value after it, so a reuse always
 * follows the free it reuses); at the end each value is classified by the
 * last free of the same value before it: by the same thread, by another
 * thread, or none (a new value). Prints one line.
 *
 * Built on the device by bench/gpu.sh: cc -I$CUDA/include cugraph_reuse.c -lcuda -lpthread
 */
#include <cuda.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct event {
	uintptr_t raw;
	int tid;
	int is_free;
};

static struct event *events;
static atomic_long seq;
static long iters;
static CUcontext ctx;

static void log_event(uintptr_t raw, int tid, int is_free)
{
	long i = atomic_fetch_add(&seq, 1);
	events[i] = (struct event){ raw, tid, is_free };
}

#define CK(call) do { CUresult rc_ = (call); if (rc_) { fprintf(stderr, "cugraph_reuse: %s: error %d\n", #call, (int)rc_); exit(1); } } while (0)

static void *worker(void *arg)
{
	int tid = (int)(intptr_t)arg;
	CUgraph parent, child, emb;
	CUgraphNode empty, node;

	CK(cuCtxSetCurrent(ctx));
	CK(cuGraphCreate(&parent, 0));
	CK(cuGraphCreate(&child, 0));
	CK(cuGraphAddEmptyNode(&empty, child, NULL, 0));
	for (long i = 0; i < iters; i++) {
		CK(cuGraphAddChildGraphNode(&node, parent, NULL, 0, child));
		CK(cuGraphChildGraphNodeGetGraph(node, &emb));
		log_event((uintptr_t)emb, tid, 0);
		log_event((uintptr_t)emb, tid, 1);
		CK(cuGraphDestroyNode(node));
	}
	CK(cuGraphDestroy(child));
	CK(cuGraphDestroy(parent));
	return NULL;
}

/* The last free of each value, in an open-addressed table. */
struct slot {
	uintptr_t raw;
	int tid;
};

int main(int argc, char **argv)
{
	if (argc != 3 || atoi(argv[1]) < 1 || atol(argv[2]) < 1) {
		fprintf(stderr, "usage: cugraph_reuse THREADS ITERS\n");
		return 2;
	}
	int nthreads = atoi(argv[1]);
	iters = atol(argv[2]);
	long nev = 2 * nthreads * iters;
	size_t cap = 1;
	while (cap < (size_t)nev * 2)
		cap <<= 1;
	events = calloc((size_t)nev, sizeof(*events));
	struct slot *last = calloc(cap, sizeof(*last));
	pthread_t *t = calloc((size_t)nthreads, sizeof(*t));
	if (!events || !last || !t)
		return 1;
	CUdevice dev;
	CK(cuInit(0));
	CK(cuDeviceGet(&dev, 0));
	CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	for (int i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);

	long same = 0, other = 0, fresh = 0;
	for (long i = 0; i < nev; i++) {
		struct event *e = &events[i];
		size_t h = (size_t)((e->raw >> 4) * 0x9e3779b97f4a7c15ULL) & (cap - 1);
		while (last[h].raw && last[h].raw != e->raw)
			h = (h + 1) & (cap - 1);
		if (e->is_free) {
			last[h].raw = e->raw;
			last[h].tid = e->tid;
		} else if (!last[h].raw) {
			fresh++;
		} else if (last[h].tid == e->tid) {
			same++;
		} else {
			other++;
		}
	}
	long n = nthreads * iters;
	printf("threads %d, child graphs %ld: value freed by the same thread %.1f%%, by another thread %.1f%%, new value %.1f%%\n",
	       nthreads, n, 100.0 * same / n, 100.0 * other / n, 100.0 * fresh / n);
	return 0;
}
