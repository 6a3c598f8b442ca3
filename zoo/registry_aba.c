/*
 * registry_aba: the raw-handle ABA race of seed 000 (cuda.core graph registry).
 *
 * A process-wide registry (one mutex) maps raw graph handle values to
 * metadata boxes (owner hierarchy, parent, owner node, attachments). Raw
 * handles come from a simulated driver whose handle pool is LIFO, so a freed
 * value is handed out again by the very next allocation, in any thread (as
 * CUDA reuses CUgraph values). Destroying a child-graph node releases the raw
 * handles first (cuGraphDestroyNode) and retires their registry entries after
 * (invalidate_child_graph_state): in between, another thread can allocate the
 * same raw value and resolve it to the stale box (CUDA_ERROR_INVALID_VALUE
 * from graph_clone_attachments), or register it as a fresh graph whose entry
 * the first thread then erases ("GraphDefinition is no longer valid").
 *
 * Every thread runs the report's test shape on its own objects:
 * inner + callback, middle.embed(inner), outer.embed(middle), find the
 * embedded views, destroy the outer child node, check the views are invalid.
 *
 * --fixed retires the entries before the driver can reuse the raw values
 * (with a rollback if the driver call fails): an entry for raw value R then
 * always belongs to the object that owns R.
 *
 * Built twice: as the program (main below) and, with -DZOO_LIBRARY, into
 * libzoo.so for zoo/python/test_zoo.py (zoo_registry_test()).
 */
#include <pthread.h>
#include <stdatomic.h>

#include "zoo.h"
#include "graph_registry.h"

/*
 * The cost model. A driver call that creates a graph object initializes it
 * (GRAPH_INIT_ROUNDS, per graph, under the driver lock); destroying a node's
 * views walks the owner hierarchy and invalidates the Python-side views
 * (INVALIDATE_ROUNDS): that walk is the window between release and retire.
 */
#ifndef GRAPH_INIT_ROUNDS
#define GRAPH_INIT_ROUNDS 3000
#endif
#ifndef INVALIDATE_ROUNDS
#define INVALIDATE_ROUNDS 750
#endif
#define MAX_NODES 4
#define PARAM_WORDS 16

/* ---- the driver: graphs, nodes, a LIFO pool of raw handles ---- */

enum node_kind { NODE_EMPTY, NODE_CALLBACK, NODE_CHILD };
enum cu_result { CUDA_SUCCESS = 0, CUDA_ERROR_INVALID_VALUE = 1 };

struct drv_node {
	enum node_kind kind;
	struct drv_graph *child;
	uint64_t params[PARAM_WORDS];
};

struct drv_graph {
	struct drv_graph *next_free;
	struct drv_graph *next_all;
	bool live;
	int nnodes;
	uint64_t check;
	struct drv_node nodes[MAX_NODES];
};

static struct {
	pthread_mutex_t lock;
	struct drv_graph *free;	/* LIFO: the last freed value is reused first */
	struct drv_graph *all;	/* every graph ever allocated, for shutdown */
} drv = { .lock = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP };

static struct drv_graph *drv_alloc_locked(void)
{
	struct drv_graph *g = drv.free;

	if (g) {
		drv.free = g->next_free;
	} else {
		g = calloc(1, sizeof(*g));
		if (!g) {
			fprintf(stderr, "registry_aba: out of memory\n");
			abort();
		}
		g->next_all = drv.all;
		drv.all = g;
	}
	g->live = true;
	g->nnodes = 0;
	g->check = zoo_work((uintptr_t)g, GRAPH_INIT_ROUNDS);
	return g;
}

static void drv_free_locked(struct drv_graph *g)
{
	for (int i = 0; i < g->nnodes; i++)
		if (g->nodes[i].kind == NODE_CHILD)
			drv_free_locked(g->nodes[i].child);
	g->live = false;
	g->next_free = drv.free;
	drv.free = g;
}

static struct drv_graph *drv_clone_locked(const struct drv_graph *src)
{
	struct drv_graph *g = drv_alloc_locked();

	g->nnodes = src->nnodes;
	for (int i = 0; i < src->nnodes; i++) {
		g->nodes[i] = src->nodes[i];
		if (src->nodes[i].kind == NODE_CHILD)
			g->nodes[i].child = drv_clone_locked(src->nodes[i].child);
	}
	return g;
}

static struct drv_graph *drv_get(uintptr_t raw)
{
	struct drv_graph *g = (struct drv_graph *)raw;

	return g && g->live ? g : NULL;
}

static int cuGraphCreate(uintptr_t *raw)
{
	pthread_mutex_lock(&drv.lock);
	*raw = (uintptr_t)drv_alloc_locked();
	pthread_mutex_unlock(&drv.lock);
	return CUDA_SUCCESS;
}

static int drv_add_node(uintptr_t raw, enum node_kind kind, uintptr_t child_raw, int *node)
{
	int rc = CUDA_ERROR_INVALID_VALUE;

	pthread_mutex_lock(&drv.lock);
	struct drv_graph *g = drv_get(raw), *c = drv_get(child_raw);
	if (g && g->nnodes < MAX_NODES && (kind != NODE_CHILD || c)) {
		struct drv_node *n = &g->nodes[g->nnodes];
		n->kind = kind;
		n->child = kind == NODE_CHILD ? drv_clone_locked(c) : NULL;
		for (int i = 0; i < PARAM_WORDS; i++)
			n->params[i] = zoo_work(raw + (uintptr_t)i, 1);
		*node = g->nnodes++;
		rc = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&drv.lock);
	return rc;
}

static int cuGraphAddHostNode(uintptr_t raw, int *node)
{
	return drv_add_node(raw, NODE_CALLBACK, 0, node);
}

static int cuGraphAddChildGraphNode(int *node, uintptr_t raw, uintptr_t child_raw)
{
	return drv_add_node(raw, NODE_CHILD, child_raw, node);
}

static int cuGraphChildGraphNodeGetGraph(uintptr_t raw, int node, uintptr_t *out)
{
	int rc = CUDA_ERROR_INVALID_VALUE;

	pthread_mutex_lock(&drv.lock);
	struct drv_graph *g = drv_get(raw);
	if (g && node >= 0 && node < g->nnodes && g->nodes[node].kind == NODE_CHILD) {
		*out = (uintptr_t)g->nodes[node].child;
		rc = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&drv.lock);
	return rc;
}

/* The kind of a node, or NODE_EMPTY when the graph or node is gone. */
static enum node_kind cuGraphNodeGetType(uintptr_t raw, int node)
{
	enum node_kind k = NODE_EMPTY;

	pthread_mutex_lock(&drv.lock);
	struct drv_graph *g = drv_get(raw);
	if (g && node >= 0 && node < g->nnodes)
		k = g->nodes[node].kind;
	pthread_mutex_unlock(&drv.lock);
	return k;
}

/* Destroys the node and, implicitly, its embedded graphs: their raw values go back to the pool. */
static int cuGraphDestroyNode(uintptr_t raw, int node)
{
	int rc = CUDA_ERROR_INVALID_VALUE;

	pthread_mutex_lock(&drv.lock);
	struct drv_graph *g = drv_get(raw);
	if (g && node >= 0 && node < g->nnodes && g->nodes[node].kind != NODE_EMPTY) {
		if (g->nodes[node].kind == NODE_CHILD)
			drv_free_locked(g->nodes[node].child);
		g->nodes[node].kind = NODE_EMPTY;
		g->nodes[node].child = NULL;
		rc = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&drv.lock);
	return rc;
}

static int cuGraphDestroy(uintptr_t raw)
{
	int rc = CUDA_ERROR_INVALID_VALUE;

	pthread_mutex_lock(&drv.lock);
	struct drv_graph *g = drv_get(raw);
	if (g) {
		drv_free_locked(g);
		rc = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&drv.lock);
	return rc;
}

#ifndef ZOO_LIBRARY
static void drv_shutdown(void)
{
	while (drv.all) {
		struct drv_graph *g = drv.all;
		drv.all = g->next_all;
		free(g);
	}
	drv.free = NULL;
}
#endif

/* ---- the cuda.core layer: GraphDefinition, GraphNode ---- */

enum zoo_err { ZE_OK, ZE_INVALID_VALUE, ZE_NOT_VALID, ZE_ASSERT };

struct err {
	enum zoo_err kind;
	const char *where;
	const char *what;
};

static int fail(struct err *e, enum zoo_err kind, const char *where, const char *what)
{
	e->kind = kind;
	e->where = where;
	e->what = what;
	return -1;
}

static struct box *graph_new(void)
{
	uintptr_t raw;

	cuGraphCreate(&raw);
	return registry_add_root(raw);
}

/*
 * graph_clone_attachments: give clone the attachment metadata of source and
 * handles for its nested child graphs. Refuses a clone that is retired or
 * already carries attachments: a stale box from another hierarchy.
 */
static int graph_clone_attachments(struct box *clone, struct box *source)
{
	uintptr_t craw = atomic_load(&clone->raw), sraw = atomic_load(&source->raw);

	if (!craw || !sraw || clone->nattach != 0)
		return CUDA_ERROR_INVALID_VALUE;
	for (int k = 0; k < MAX_NODES; k++) {
		uintptr_t nested_src, nested_clone;
		if (cuGraphNodeGetType(sraw, k) != NODE_CHILD)
			continue;
		if (cuGraphChildGraphNodeGetGraph(sraw, k, &nested_src) ||
		    cuGraphChildGraphNodeGetGraph(craw, k, &nested_clone))
			return CUDA_ERROR_INVALID_VALUE;
		struct box *src_box = registry_lookup(nested_src);
		if (!src_box)
			return CUDA_ERROR_INVALID_VALUE;
		struct box *h = create_child_graph_handle(nested_clone, clone, k);
		int st = graph_clone_attachments(h, src_box);
		box_unref(h);
		box_unref(src_box);
		if (st)
			return st;
	}
	clone->nattach = source->nattach;
	return CUDA_SUCCESS;
}

/*
 * invalidate_child_graph_state: after the node is gone, walk the owner
 * hierarchy for the views it embedded and retire them. Buggy: by raw value,
 * after the driver already reused those values.
 */
static void invalidate_child_graph_state(struct box *parent, int node)
{
	struct box *views[8];
	uintptr_t raws[8];
	int n = collect_embedded(parent, node, views, 8);
	uint64_t sink = 0;

	for (int i = 0; i < n; i++) {
		raws[i] = atomic_load(&views[i]->raw);
		sink += zoo_work(raws[i], INVALIDATE_ROUNDS);
	}
	zoo_use(sink);
	for (int i = 0; i < n; i++) {
		if (raws[i])
			retire_graph(raws[i]);
		atomic_store(&views[i]->raw, 0);
		box_unref(views[i]);
	}
}

/* A GraphNode of kind child graph: its parent and index. */
struct gnode {
	struct box *parent;
	int node;
	struct box *child;	/* the embedded graph's handle */
};

/* GraphNode.destroy() */
static void graph_node_destroy(struct gnode *n, bool fixed)
{
	uintptr_t praw = atomic_load(&n->parent->raw);

	if (!fixed) {
		/* The report's order: the driver first, the registry after. */
		if (cuGraphDestroyNode(praw, n->node) == CUDA_SUCCESS)
			invalidate_child_graph_state(n->parent, n->node);
		return;
	}
	/* Retire (reserve) first, so no other thread can see a reused value. */
	struct box *views[8];
	uintptr_t raws[8];
	int cnt = collect_embedded(n->parent, n->node, views, 8);
	uint64_t sink = 0;
	for (int i = 0; i < cnt; i++) {
		raws[i] = atomic_load(&views[i]->raw);
		sink += zoo_work(raws[i], INVALIDATE_ROUNDS);
		retire_box(views[i]);
	}
	zoo_use(sink);
	if (cuGraphDestroyNode(praw, n->node) != CUDA_SUCCESS) {
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
}

/* GraphDefinition.embed / GraphNode.embed / GN_embed */
static int graph_embed(struct box *parent, struct box *child, struct gnode *out, bool fixed,
		       struct err *e)
{
	int node;
	uintptr_t emb;

	if (!is_valid(parent) || !is_valid(child))
		return fail(e, ZE_NOT_VALID, "GraphDefinition.embed", "GraphDefinition is no longer valid");
	if (cuGraphAddChildGraphNode(&node, atomic_load(&parent->raw), atomic_load(&child->raw)) ||
	    cuGraphChildGraphNodeGetGraph(atomic_load(&parent->raw), node, &emb))
		return fail(e, ZE_INVALID_VALUE, "GN_embed",
			    "HANDLE_RETURN(cuGraphAddChildGraphNode(&new_node, as_cu(h_graph), ...))");
	struct box *h = create_child_graph_handle(emb, parent, node);
	if (graph_clone_attachments(h, child)) {
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
		cuGraphDestroy(raw);
	box_unref(root);
}

/* Finds the child-graph node of g (a view) and returns a referenced handle of its graph. */
static struct box *child_graph_of(struct box *g, struct err *e)
{
	uintptr_t raw = atomic_load(&g->raw), emb;

	if (!raw) {
		fail(e, ZE_NOT_VALID, "GraphNode.child_graph", "GraphDefinition is no longer valid");
		return NULL;
	}
	for (int k = 0; k < MAX_NODES; k++) {
		if (cuGraphNodeGetType(raw, k) != NODE_CHILD)
			continue;
		if (cuGraphChildGraphNodeGetGraph(raw, k, &emb))
			break;
		struct box *b = registry_lookup(emb);
		if (b && b->parent == g)
			return b;
		box_unref(b);
		break;
	}
	fail(e, ZE_NOT_VALID, "GraphDefinition.nodes", "GraphDefinition is no longer valid");
	return NULL;
}

/*
 * One run of test_destroying_child_node_invalidates_embedded_handles on this
 * thread's own objects. Returns 0, or -1 with *e filled.
 */
static int test_destroying_child_node(bool fixed, struct err *e)
{
	struct box *inner = graph_new(), *middle = NULL, *outer = NULL;
	struct box *emb_middle = NULL, *emb_inner = NULL;
	struct gnode mid_child = { 0 }, outer_child = { 0 };
	int node, rc = -1;

	if (!is_valid(inner) || cuGraphAddHostNode(atomic_load(&inner->raw), &node)) {
		fail(e, ZE_NOT_VALID, "GraphDefinition.callback", "GraphDefinition is no longer valid");
		goto out;
	}
	inner->nattach = 1;	/* the callback object is kept alive by the graph */
	middle = graph_new();
	if (graph_embed(middle, inner, &mid_child, fixed, e))
		goto out;
	middle->nattach = inner->nattach;
	outer = graph_new();
	if (graph_embed(outer, middle, &outer_child, fixed, e))
		goto out;
	emb_middle = box_ref(outer_child.child);	/* outer_child.child_graph */
	if (!is_valid(emb_middle)) {
		fail(e, ZE_NOT_VALID, "GraphNode.child_graph", "GraphDefinition is no longer valid");
		goto out;
	}
	emb_inner = child_graph_of(emb_middle, e);
	if (!emb_inner)
		goto out;

	graph_node_destroy(&outer_child, fixed);

	if (cuGraphNodeGetType(atomic_load(&outer->raw), outer_child.node) != NODE_EMPTY)
		fail(e, ZE_ASSERT, "test", "assert not outer_child.is_valid");
	else if (is_valid(emb_middle))
		fail(e, ZE_ASSERT, "test", "assert int(embedded_middle.handle) == 0");
	else if (is_valid(emb_inner))
		fail(e, ZE_ASSERT, "test", "assert int(embedded_inner.handle) == 0");
	else
		rc = 0;
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

static const char *err_type(enum zoo_err k)
{
	switch (k) {
	case ZE_INVALID_VALUE:
		return "CUDAError: CUDA_ERROR_INVALID_VALUE";
	case ZE_NOT_VALID:
		return "RuntimeError: GraphDefinition is no longer valid";
	default:
		return "AssertionError";
	}
}

static void err_format(const struct err *e, char *buf, size_t len)
{
	if (e->kind == ZE_ASSERT)
		snprintf(buf, len, "AssertionError: %s", e->what);
	else if (e->kind == ZE_INVALID_VALUE)
		snprintf(buf, len, "%s\n    %s\n    in %s", err_type(e->kind), e->what, e->where);
	else
		snprintf(buf, len, "%s\n    in %s", err_type(e->kind), e->where);
}

#ifdef ZOO_LIBRARY

/*
 * zoo_registry_test: one run of the test shape on the caller's own objects,
 * against the process-wide registry. Thread-safe. Returns 0 when it passed,
 * 1 with a message in msg (the error line first) when the race bit.
 */
__attribute__((visibility("default")))
int zoo_registry_test(int fixed, char *msg, size_t len)
{
	struct err e = { 0 };

	if (test_destroying_child_node(fixed != 0, &e) == 0)
		return 0;
	err_format(&e, msg, len);
	return 1;
}

#else

static struct zoo_opts opts;
static atomic_bool stop;

struct worker {
	pthread_t tid;
	int id;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	for (long i = 0; i < opts.iters && !atomic_load(&stop); i++) {
		struct err e = { 0 };
		if (test_destroying_child_node(opts.fixed, &e)) {
			char buf[512];
			atomic_store(&stop, true);
			err_format(&e, buf, sizeof(buf));
			zoo_die("registry_aba: thread %d, iteration %ld: "
				"test_destroying_child_node_invalidates_embedded_handles failed\n%s\n",
				w->id, i, buf);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct zoo_prog prog = {
		.name = "registry_aba",
		.summary = "seed 000: raw graph handles reused before their registry entry is retired (ABA)",
		.threads_help = "test threads, each on its own objects",
		.iters_help = "test runs per thread",
		.threads = 2, .min_threads = 1, .max_threads = 64,
		.iters = 60, .max_iters = 100000000,
	};
	int rc = zoo_opts_parse(&prog, argc, argv, &opts);
	if (rc >= 0)
		return rc;

	struct worker *w = calloc((size_t)opts.threads, sizeof(*w));
	if (!w) {
		fprintf(stderr, "registry_aba: out of memory\n");
		return ZOO_FAIL;
	}
	for (int i = 0; i < opts.threads; i++) {
		w[i].id = i;
		if (pthread_create(&w[i].tid, NULL, worker_main, &w[i])) {
			fprintf(stderr, "registry_aba: cannot create thread %d\n", i);
			return ZOO_FAIL;
		}
	}
	for (int i = 0; i < opts.threads; i++)
		pthread_join(w[i].tid, NULL);
	free(w);
	drv_shutdown();
	printf("registry_aba: %d threads x %ld runs passed%s\n", opts.threads, opts.iters,
	       opts.fixed ? " (fixed)" : "");
	return ZOO_PASS;
}

#endif
