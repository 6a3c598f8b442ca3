/*
 * cuda_graph_registry: seed 000 on the real CUDA driver.
 *
 * registry_aba imitates the race with a simulated driver; this program runs
 * the same cuda.core shape against libcuda itself, where the reuse of raw
 * CUgraph values is the driver's own behaviour. A process-wide registry (one
 * mutex) maps the raw CUgraph value of every embedded child graph (from
 * cuGraphAddChildGraphNode + cuGraphChildGraphNodeGetGraph) to a metadata
 * box (owner hierarchy, parent graph, owner node, attachments). Several
 * threads each build their own graphs (inner + host callback,
 * middle.embed(inner), outer.embed(middle)), launch the outer graph, find the
 * embedded views, destroy the outer child node and check that the views are
 * invalid: test_destroying_child_node_invalidates_embedded_handles, one copy
 * per thread, as pytest-run-parallel ran it.
 *
 * The bug is the report's order in GraphNode.destroy(): cuGraphDestroyNode
 * first (the driver frees the embedded graphs, whose raw values it may hand
 * out again at once), then invalidate_child_graph_state() walks the owner
 * hierarchy and retires the entries by raw value. In between, another thread
 * can embed a graph whose clone gets the same raw value: it finds the stale
 * entry (CUDAError: CUDA_ERROR_INVALID_VALUE from graph_clone_attachments),
 * or its fresh entry is retired by the first thread ("GraphDefinition is no
 * longer valid"). Whether another thread can get a freed value depends on
 * the driver's allocator and the C library's heap (bench/gpu.sh measures how
 * often it happens).
 *
 * --fixed retires the entries before the driver call that frees the raw
 * values (with a rollback if that call fails).
 *
 * libcuda.so.1 is loaded with dlopen, so the zoo builds on machines without
 * CUDA; without a usable driver the program says so and exits 77 (skipped).
 * Driver calls never get a stale handle: the registry's boxes are checked
 * before a driver handle from them is used.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>

#include "zoo.h"
#include "graph_registry.h"

/*
 * The window between release and retire: invalidating the Python-side
 * views of the destroyed node (registry_aba's INVALIDATE_ROUNDS).
 */
#ifndef INVALIDATE_ROUNDS
#define INVALIDATE_ROUNDS 750
#endif
#define MAX_CHILDREN 4

/* ---- the driver API, loaded with dlopen (the declarations of cuda.h) ---- */

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphNode_st *CUgraphNode;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUstream_st *CUstream;
typedef void (*CUhostFn)(void *);
struct cu_host_node_params {
	CUhostFn fn;
	void *user_data;
};

enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_INVALID_VALUE = 1,
	CU_GRAPH_NODE_TYPE_GRAPH = 4,
	CU_STREAM_NON_BLOCKING = 1,
};

static struct {
	CUresult (*Init)(unsigned);
	CUresult (*DeviceGet)(CUdevice *, int);
	CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
	CUresult (*CtxSetCurrent)(CUcontext);
	CUresult (*GetErrorName)(CUresult, const char **);
	CUresult (*StreamCreate)(CUstream *, unsigned);
	CUresult (*StreamSynchronize)(CUstream);
	CUresult (*StreamDestroy)(CUstream);
	CUresult (*GraphCreate)(CUgraph *, unsigned);
	CUresult (*GraphDestroy)(CUgraph);
	CUresult (*GraphAddHostNode)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
				     const struct cu_host_node_params *);
	CUresult (*GraphAddChildGraphNode)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t, CUgraph);
	CUresult (*GraphChildGraphNodeGetGraph)(CUgraphNode, CUgraph *);
	CUresult (*GraphGetNodes)(CUgraph, CUgraphNode *, size_t *);
	CUresult (*GraphNodeGetType)(CUgraphNode, int *);
	CUresult (*GraphDestroyNode)(CUgraphNode);
	CUresult (*GraphInstantiateWithFlags)(CUgraphExec *, CUgraph, unsigned long long);
	CUresult (*GraphLaunch)(CUgraphExec, CUstream);
	CUresult (*GraphExecDestroy)(CUgraphExec);
} cu;

static const struct {
	const char *name;
	void *slot;
} cu_syms[] = {
	{ "cuInit", &cu.Init },
	{ "cuDeviceGet", &cu.DeviceGet },
	{ "cuDevicePrimaryCtxRetain", &cu.DevicePrimaryCtxRetain },
	{ "cuCtxSetCurrent", &cu.CtxSetCurrent },
	{ "cuGetErrorName", &cu.GetErrorName },
	{ "cuStreamCreate", &cu.StreamCreate },
	{ "cuStreamSynchronize", &cu.StreamSynchronize },
	{ "cuStreamDestroy_v2", &cu.StreamDestroy },
	{ "cuGraphCreate", &cu.GraphCreate },
	{ "cuGraphDestroy", &cu.GraphDestroy },
	{ "cuGraphAddHostNode", &cu.GraphAddHostNode },
	{ "cuGraphAddChildGraphNode", &cu.GraphAddChildGraphNode },
	{ "cuGraphChildGraphNodeGetGraph", &cu.GraphChildGraphNodeGetGraph },
	{ "cuGraphGetNodes", &cu.GraphGetNodes },
	{ "cuGraphNodeGetType", &cu.GraphNodeGetType },
	{ "cuGraphDestroyNode", &cu.GraphDestroyNode },
	{ "cuGraphInstantiateWithFlags", &cu.GraphInstantiateWithFlags },
	{ "cuGraphLaunch", &cu.GraphLaunch },
	{ "cuGraphExecDestroy", &cu.GraphExecDestroy },
};

static CUcontext cu_ctx;

/* Loads the driver and makes its primary context. false with why[] filled when there is none. */
static bool cu_load(char *why, size_t len)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, len, "%s", dlerror());
		return false;
	}
	for (size_t i = 0; i < sizeof(cu_syms) / sizeof(cu_syms[0]); i++) {
		void *p = dlsym(h, cu_syms[i].name);
		if (!p) {
			snprintf(why, len, "libcuda.so.1 has no '%s' (driver too old)", cu_syms[i].name);
			return false;
		}
		memcpy(cu_syms[i].slot, &p, sizeof(p));
	}
	CUdevice dev;
	CUresult rc = cu.Init(0);
	if (!rc)
		rc = cu.DeviceGet(&dev, 0);
	if (!rc)
		rc = cu.DevicePrimaryCtxRetain(&cu_ctx, dev);
	if (rc) {
		const char *name = NULL;
		cu.GetErrorName(rc, &name);
		snprintf(why, len, "no usable CUDA device: %s", name ? name : "unknown error");
		return false;
	}
	return true;
}

static const char *cu_name(CUresult rc)
{
	const char *name = NULL;

	if (cu.GetErrorName(rc, &name) || !name)
		return "CUDA_ERROR_UNKNOWN";
	return name;
}

/* The child-graph nodes of graph g, in the order cuGraphGetNodes gives them. */
static int child_nodes(CUgraph g, CUgraphNode *out, size_t cap)
{
	CUgraphNode all[8];
	size_t n = 8, k = 0;

	if (cu.GraphGetNodes(g, all, &n))
		return -1;
	for (size_t i = 0; i < n && i < 8; i++) {
		int type;
		if (cu.GraphNodeGetType(all[i], &type))
			return -1;
		if (type == CU_GRAPH_NODE_TYPE_GRAPH && k < cap)
			out[k++] = all[i];
	}
	return (int)k;
}

/* ---- the registry (graph_registry.h), keyed by raw CUgraph values ---- */

static void *xcalloc_or_die(size_t size)
{
	void *p = calloc(1, size);

	if (!p) {
		fprintf(stderr, "cuda_graph_registry: out of memory\n");
		abort();
	}
	return p;
}

static CUgraph graph_of(struct box *b)
{
	return (CUgraph)atomic_load(&b->raw);
}

/* ---- the cuda.core layer: GraphDefinition, GraphNode ---- */

enum zoo_err { ZE_OK, ZE_INVALID_VALUE, ZE_NOT_VALID, ZE_ASSERT, ZE_DRIVER };

struct err {
	enum zoo_err kind;
	const char *where;
	const char *what;
	CUresult rc;
};

static int fail(struct err *e, enum zoo_err kind, const char *where, const char *what)
{
	e->kind = kind;
	e->where = where;
	e->what = what;
	return -1;
}

static int fail_driver(struct err *e, CUresult rc, const char *what)
{
	e->rc = rc;
	return fail(e, ZE_DRIVER, "driver", what);
}

/* GraphDefinition(): a root graph, registered under its raw value. NULL with *e on error. */
static struct box *graph_new(struct err *e)
{
	CUgraph g;
	CUresult rc = cu.GraphCreate(&g, 0);

	if (rc) {
		fail_driver(e, rc, "cuGraphCreate");
		return NULL;
	}
	return registry_add_root((uintptr_t)g);
}

/*
 * graph_clone_attachments: give clone the attachment metadata of source and
 * handles for its nested child graphs. Refuses a clone that is retired or
 * already carries attachments, or whose owner is not the graph that embeds
 * it: a stale box of another hierarchy.
 */
static CUresult graph_clone_attachments(struct box *clone, struct box *source, struct box *owner)
{
	CUgraphNode src_nodes[MAX_CHILDREN], clone_nodes[MAX_CHILDREN];

	if (!is_valid(clone) || !is_valid(source) || clone->nattach != 0 || clone->parent != owner)
		return CUDA_ERROR_INVALID_VALUE;
	int ns = child_nodes(graph_of(source), src_nodes, MAX_CHILDREN);
	int nc = child_nodes(graph_of(clone), clone_nodes, MAX_CHILDREN);
	if (ns < 0 || ns != nc)
		return CUDA_ERROR_INVALID_VALUE;
	for (int k = 0; k < ns; k++) {
		CUgraph nested_src, nested_clone;
		if (cu.GraphChildGraphNodeGetGraph(src_nodes[k], &nested_src) ||
		    cu.GraphChildGraphNodeGetGraph(clone_nodes[k], &nested_clone))
			return CUDA_ERROR_INVALID_VALUE;
		struct box *src_box = registry_lookup((uintptr_t)nested_src);
		if (!src_box)
			return CUDA_ERROR_INVALID_VALUE;
		struct box *h = create_child_graph_handle((uintptr_t)nested_clone, clone, (uintptr_t)clone_nodes[k]);
		CUresult st = graph_clone_attachments(h, src_box, clone);
		box_unref(h);
		box_unref(src_box);
		if (st)
			return st;
	}
	clone->nattach = source->nattach;
	return CUDA_SUCCESS;
}

/* Reads the raw values of the views and invalidates them on the Python side: the window. */
static void views_walk(struct box **views, uintptr_t *raws, int n)
{
	uint64_t sink = 0;

	for (int i = 0; i < n; i++) {
		raws[i] = atomic_load(&views[i]->raw);
		sink += zoo_work(raws[i], INVALIDATE_ROUNDS);
	}
	zoo_use(sink);
}

/* A GraphNode of kind child graph: the graph that holds it and the embedded graph's handle. */
struct gnode {
	struct box *parent;
	CUgraphNode node;
	struct box *child;
};

/* GraphNode.destroy() */
static CUresult graph_node_destroy(struct gnode *n, bool fixed)
{
	struct box *views[8];
	uintptr_t raws[8];
	CUresult rc;

	if (!fixed) {
		/* The report's order: the driver first, the registry after. */
		rc = cu.GraphDestroyNode(n->node);
		if (rc)
			return rc;
		int cnt = collect_embedded(n->parent, (uintptr_t)n->node, views, 8);
		views_walk(views, raws, cnt);
		for (int i = 0; i < cnt; i++) {
			if (raws[i])
				retire_graph(raws[i]);
			atomic_store(&views[i]->raw, 0);
			box_unref(views[i]);
		}
		return CUDA_SUCCESS;
	}
	/* Retire (reserve) first, so no other thread can see a reused value. */
	int cnt = collect_embedded(n->parent, (uintptr_t)n->node, views, 8);
	views_walk(views, raws, cnt);
	for (int i = 0; i < cnt; i++)
		retire_box(views[i]);
	rc = cu.GraphDestroyNode(n->node);
	if (rc) {
		/* Rollback: the graphs still exist, so their entries come back. */
		pthread_mutex_lock(&reg.lock);
		for (int i = 0; i < cnt; i++) {
			atomic_store(&views[i]->raw, raws[i]);
			reg_insert_locked(raws[i], views[i]);
		}
		pthread_mutex_unlock(&reg.lock);
	}
	for (int i = 0; i < cnt; i++)
		box_unref(views[i]);
	return rc;
}

/* GraphDefinition.embed / GraphNode.embed / GN_embed */
static int graph_embed(struct box *parent, struct box *child, struct gnode *out, bool fixed,
		       struct err *e)
{
	CUgraphNode node;
	CUgraph emb;
	CUresult rc;

	if (!is_valid(parent) || !is_valid(child))
		return fail(e, ZE_NOT_VALID, "GraphDefinition.embed", "GraphDefinition is no longer valid");
	rc = cu.GraphAddChildGraphNode(&node, graph_of(parent), NULL, 0, graph_of(child));
	if (rc)
		return fail_driver(e, rc, "cuGraphAddChildGraphNode");
	rc = cu.GraphChildGraphNodeGetGraph(node, &emb);
	if (rc)
		return fail_driver(e, rc, "cuGraphChildGraphNodeGetGraph");
	struct box *h = create_child_graph_handle((uintptr_t)emb, parent, (uintptr_t)node);
	if (graph_clone_attachments(h, child, parent)) {
		struct gnode rollback = { .parent = parent, .node = node };
		box_unref(h);
		graph_node_destroy(&rollback, fixed);
		return fail(e, ZE_INVALID_VALUE, "GN_embed",
			    "HANDLE_RETURN(graph_clone_attachments(h_embedded, child_def._h_graph))");
	}
	out->parent = parent;
	out->node = node;
	out->child = h;
	return 0;
}

/* Destroys a root GraphDefinition: its hierarchy is retired first, then the driver graph. */
static void graph_free(struct box *root)
{
	uintptr_t raw = retire_hierarchy(root);

	if (raw)
		cu.GraphDestroy((CUgraph)raw);
	box_unref(root);
}

/* GraphNode.child_graph of the one child-graph node of view g, with a reference. */
static struct box *child_graph_of(struct box *g, struct err *e)
{
	CUgraphNode nodes[MAX_CHILDREN];
	CUgraph emb;

	if (is_valid(g) && child_nodes(graph_of(g), nodes, MAX_CHILDREN) == 1 &&
	    !cu.GraphChildGraphNodeGetGraph(nodes[0], &emb)) {
		struct box *b = registry_lookup((uintptr_t)emb);
		if (b && b->parent == g)
			return b;
		box_unref(b);
	}
	fail(e, ZE_NOT_VALID, "GraphDefinition.nodes", "GraphDefinition is no longer valid");
	return NULL;
}

static void on_callback(void *arg)
{
	atomic_fetch_add((atomic_int *)arg, 1);
}

/* GraphDefinition.instantiate().launch(stream); stream.sync() */
static int graph_launch(struct box *g, CUstream stream, struct err *e)
{
	CUgraphExec exec;
	CUresult rc;

	if (!is_valid(g))
		return fail(e, ZE_NOT_VALID, "GraphDefinition.instantiate", "GraphDefinition is no longer valid");
	rc = cu.GraphInstantiateWithFlags(&exec, graph_of(g), 0);
	if (rc)
		return fail_driver(e, rc, "cuGraphInstantiateWithFlags");
	rc = cu.GraphLaunch(exec, stream);
	if (!rc)
		rc = cu.StreamSynchronize(stream);
	cu.GraphExecDestroy(exec);
	if (rc)
		return fail_driver(e, rc, "cuGraphLaunch");
	return 0;
}

/*
 * One run of test_destroying_child_node_invalidates_embedded_handles on this
 * thread's own objects, launching the outer graph once before the destroy.
 * Returns 0, or -1 with *e filled.
 */
static int test_destroying_child_node(bool fixed, CUstream stream, atomic_int *calls, struct err *e)
{
	struct box *inner, *middle = NULL, *outer = NULL, *emb_middle = NULL, *emb_inner = NULL;
	struct gnode mid_child = { 0 }, outer_child = { 0 };
	struct cu_host_node_params cb = { .fn = on_callback, .user_data = calls };
	CUgraphNode node;
	int rc = -1;

	inner = graph_new(e);
	if (!inner)
		return -1;
	if (!is_valid(inner)) {
		fail(e, ZE_NOT_VALID, "GraphDefinition.callback", "GraphDefinition is no longer valid");
		goto out;
	}
	CUresult st = cu.GraphAddHostNode(&node, graph_of(inner), NULL, 0, &cb);
	if (st) {
		fail_driver(e, st, "cuGraphAddHostNode");
		goto out;
	}
	inner->nattach = 1;	/* the callback object is kept alive by the graph */
	if (!(middle = graph_new(e)) || graph_embed(middle, inner, &mid_child, fixed, e))
		goto out;
	middle->nattach = inner->nattach;
	if (!(outer = graph_new(e)) || graph_embed(outer, middle, &outer_child, fixed, e))
		goto out;
	int before = atomic_load(calls);
	if (graph_launch(outer, stream, e))
		goto out;
	if (atomic_load(calls) != before + 1) {
		fail(e, ZE_ASSERT, "test", "assert callback_ran == 1");
		goto out;
	}
	emb_middle = box_ref(outer_child.child);	/* outer_child.child_graph */
	if (!is_valid(emb_middle)) {
		fail(e, ZE_NOT_VALID, "GraphNode.child_graph", "GraphDefinition is no longer valid");
		goto out;
	}
	if (!(emb_inner = child_graph_of(emb_middle, e)))
		goto out;

	st = graph_node_destroy(&outer_child, fixed);
	size_t left = 0;
	if (st) {
		fail_driver(e, st, "cuGraphDestroyNode");
	} else if (cu.GraphGetNodes(graph_of(outer), NULL, &left) || left != 0) {
		fail(e, ZE_ASSERT, "test", "assert not outer_child.is_valid");
	} else if (is_valid(emb_middle)) {
		fail(e, ZE_ASSERT, "test", "assert int(embedded_middle.handle) == 0");
	} else if (is_valid(emb_inner)) {
		fail(e, ZE_ASSERT, "test", "assert int(embedded_inner.handle) == 0");
	} else {
		rc = 0;
	}
out:
	box_unref(emb_inner);
	box_unref(emb_middle);
	box_unref(outer_child.child);
	box_unref(mid_child.child);
	if (outer)
		graph_free(outer);
	if (middle)
		graph_free(middle);
	graph_free(inner);
	return rc;
}

static void err_format(const struct err *e, char *buf, size_t len)
{
	switch (e->kind) {
	case ZE_INVALID_VALUE:
		snprintf(buf, len, "CUDAError: CUDA_ERROR_INVALID_VALUE\n    %s\n    in %s", e->what, e->where);
		break;
	case ZE_NOT_VALID:
		snprintf(buf, len, "RuntimeError: GraphDefinition is no longer valid\n    in %s", e->where);
		break;
	case ZE_DRIVER:
		snprintf(buf, len, "CUDAError: %s\n    in %s", cu_name(e->rc), e->what);
		break;
	default:
		snprintf(buf, len, "AssertionError: %s", e->what);
		break;
	}
}

static struct zoo_opts opts;
static atomic_bool stop;

struct worker {
	pthread_t tid;
	int id;
	int rc;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	CUstream stream;
	atomic_int calls;
	struct err e = { 0 };
	char buf[512];

	atomic_init(&calls, 0);
	CUresult rc = cu.CtxSetCurrent(cu_ctx);
	if (!rc)
		rc = cu.StreamCreate(&stream, CU_STREAM_NON_BLOCKING);
	if (rc) {
		atomic_store(&stop, true);
		fprintf(stderr, "cuda_graph_registry: thread %d: cannot set up a stream: %s\n", w->id, cu_name(rc));
		w->rc = ZOO_FAIL;
		return NULL;
	}
	for (long i = 0; i < opts.iters && !atomic_load(&stop); i++) {
		if (test_destroying_child_node(opts.fixed, stream, &calls, &e)) {
			atomic_store(&stop, true);
			err_format(&e, buf, sizeof(buf));
			zoo_die("cuda_graph_registry: thread %d, iteration %ld: "
				"test_destroying_child_node_invalidates_embedded_handles failed\n%s\n",
				w->id, i, buf);
		}
	}
	cu.StreamDestroy(stream);
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct zoo_prog prog = {
		.name = "cuda_graph_registry",
		.summary = "seed 000 on the real CUDA driver: raw CUgraph values reused before their registry entry is retired",
		.threads_help = "test threads, each on its own graphs",
		.iters_help = "test runs per thread",
		.threads = 4, .min_threads = 1, .max_threads = 64,
		.iters = 100, .max_iters = 100000000,
	};
	char why[256];
	int rc = zoo_opts_parse(&prog, argc, argv, &opts);
	if (rc >= 0)
		return rc;
	if (!cu_load(why, sizeof(why))) {
		fprintf(stderr, "cuda_graph_registry: skipped: %s\n", why);
		return ZOO_SKIP;
	}

	struct worker *w = xcalloc_or_die((size_t)opts.threads * sizeof(*w));
	for (int i = 0; i < opts.threads; i++) {
		w[i].id = i;
		if (pthread_create(&w[i].tid, NULL, worker_main, &w[i])) {
			fprintf(stderr, "cuda_graph_registry: cannot create thread %d\n", i);
			return ZOO_FAIL;
		}
	}
	rc = ZOO_PASS;
	for (int i = 0; i < opts.threads; i++) {
		pthread_join(w[i].tid, NULL);
		if (w[i].rc)
			rc = w[i].rc;
	}
	free(w);
	if (rc == ZOO_PASS)
		printf("cuda_graph_registry: %d threads x %ld runs passed%s\n", opts.threads, opts.iters,
		       opts.fixed ? " (fixed)" : "");
	return rc;
}
