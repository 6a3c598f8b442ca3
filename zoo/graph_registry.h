/*
 * graph_registry.h: the cuda.core graph registry of seed 000, shared by
 * registry_aba (a simulated driver) and cuda_graph_registry (libcuda).
 *
 * A process-wide registry (one mutex) maps raw graph handle values to
 * metadata boxes (GraphBox: owner hierarchy, parent, owner node,
 * attachments). retire_graph() retires by raw value, the report's bug:
 * whatever is registered under the value now, a newer graph of another
 * thread included; retire_box() retires exactly one box, the fix. A node is
 * a uintptr_t: an index in the simulation, a CUgraphNode in libcuda.
 *
 * Header-only (static functions), like zoo.h, for the two programs that
 * include it; each has one registry.
 */
#ifndef ZOO_GRAPH_REGISTRY_H
#define ZOO_GRAPH_REGISTRY_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NBUCKETS 1024

/*
 * A GraphBox. raw is 0 once the graph is retired (is_valid false). Roots own
 * their hierarchy: the list of boxes of the graphs embedded under them. A box
 * is shared (registry, hierarchy, Python views) and freed with its last ref.
 */
struct box {
	_Atomic uintptr_t raw;
	atomic_int refs;
	struct box *root;	/* the owner of the hierarchy (self for a root) */
	struct box *parent;	/* NULL for a root */
	uintptr_t node;		/* the node of parent that embeds this graph */
	int nattach;		/* attachments (callbacks) of this graph's subtree */
	struct box *hier_next;	/* in root->hier */
	struct box *hier;	/* root only: embedded boxes */
};

struct entry {
	uintptr_t raw;
	struct box *box;	/* the registry holds a reference */
	struct entry *next;
};

static struct {
	pthread_mutex_t lock;
	struct entry *bucket[NBUCKETS];
} reg = { .lock = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP };

static struct box *box_ref(struct box *b)
{
	atomic_fetch_add(&b->refs, 1);
	return b;
}

static void box_unref(struct box *b)
{
	if (b && atomic_fetch_sub(&b->refs, 1) == 1)
		free(b);
}

static struct box *box_new(uintptr_t raw, struct box *parent, uintptr_t node)
{
	struct box *b = calloc(1, sizeof(*b));

	if (!b) {
		fprintf(stderr, "graph registry: out of memory\n");
		abort();
	}
	atomic_init(&b->raw, raw);
	atomic_init(&b->refs, 1);
	b->parent = parent;
	b->node = node;
	b->root = parent ? parent->root : b;
	return b;
}

static size_t reg_hash(uintptr_t raw)
{
	return (size_t)((raw >> 4) * 0x9e3779b97f4a7c15ULL >> 54) % NBUCKETS;
}

static struct entry **reg_find_locked(uintptr_t raw)
{
	struct entry **pe = &reg.bucket[reg_hash(raw)];

	while (*pe && (*pe)->raw != raw)
		pe = &(*pe)->next;
	return pe;
}

/* Registers b under raw, replacing (and releasing) whatever was there. */
static void reg_insert_locked(uintptr_t raw, struct box *b)
{
	struct entry **pe = reg_find_locked(raw);

	if (*pe) {
		box_unref((*pe)->box);
		(*pe)->box = box_ref(b);
		return;
	}
	struct entry *e = malloc(sizeof(*e));
	if (!e) {
		fprintf(stderr, "graph registry: out of memory\n");
		abort();
	}
	e->raw = raw;
	e->box = box_ref(b);
	e->next = NULL;
	*pe = e;
}

static void reg_remove_locked(struct entry **pe)
{
	struct entry *e = *pe;

	*pe = e->next;
	box_unref(e->box);
	free(e);
}

/* The box registered under raw, with a reference for the caller, or NULL. */
static struct box *registry_lookup(uintptr_t raw)
{
	struct box *b = NULL;

	pthread_mutex_lock(&reg.lock);
	struct entry **pe = reg_find_locked(raw);
	if (*pe)
		b = box_ref((*pe)->box);
	pthread_mutex_unlock(&reg.lock);
	return b;
}

/*
 * retire_graph: the buggy retirement, by raw value. Whatever box is
 * registered under raw now is invalidated and dropped, even when raw has
 * been reused by a newer graph of another thread.
 */
static void retire_graph(uintptr_t raw)
{
	pthread_mutex_lock(&reg.lock);
	struct entry **pe = reg_find_locked(raw);
	if (*pe) {
		atomic_store(&(*pe)->box->raw, 0);
		reg_remove_locked(pe);
	}
	pthread_mutex_unlock(&reg.lock);
}

/* Retires exactly box b (its own entry, if still registered). */
static void retire_box(struct box *b)
{
	pthread_mutex_lock(&reg.lock);
	uintptr_t raw = atomic_load(&b->raw);
	if (raw) {
		struct entry **pe = reg_find_locked(raw);
		if (*pe && (*pe)->box == b)
			reg_remove_locked(pe);
		atomic_store(&b->raw, 0);
	}
	pthread_mutex_unlock(&reg.lock);
}

/*
 * create_child_graph_handle: the handle of embedded graph raw under
 * (parent, node). As in the report, an existing entry is returned as is:
 * with a reused raw value that is another thread's stale box.
 */
static struct box *create_child_graph_handle(uintptr_t raw, struct box *parent, uintptr_t node)
{
	pthread_mutex_lock(&reg.lock);
	struct entry **pe = reg_find_locked(raw);
	if (*pe) {
		struct box *b = box_ref((*pe)->box);
		pthread_mutex_unlock(&reg.lock);
		return b;
	}
	struct box *b = box_new(raw, parent, node);
	reg_insert_locked(raw, b);
	b->hier_next = b->root->hier;	/* the hierarchy's reference */
	b->root->hier = box_ref(b);
	pthread_mutex_unlock(&reg.lock);
	return b;
}

static bool is_valid(struct box *b)
{
	return atomic_load(&b->raw) != 0;
}

/*
 * Retires root and every graph of its hierarchy, before the driver graph is
 * destroyed; returns root's raw value (0 when another thread retired it).
 * The caller's reference to root stays.
 */
static uintptr_t retire_hierarchy(struct box *root)
{
	uintptr_t raw = atomic_load(&root->raw);

	for (struct box *b = root->hier, *next; b; b = next) {
		next = b->hier_next;
		retire_box(b);
		box_unref(b);
	}
	root->hier = NULL;
	retire_box(root);
	return raw;
}

/* A root graph (GraphDefinition()), registered under its raw value. */
static struct box *registry_add_root(uintptr_t raw)
{
	struct box *b = box_new(raw, NULL, 0);

	pthread_mutex_lock(&reg.lock);
	reg_insert_locked(raw, b);
	pthread_mutex_unlock(&reg.lock);
	return b;
}

/* Collects, with references, the boxes of the graphs embedded under (parent, node). */
static int collect_embedded(struct box *parent, uintptr_t node, struct box **out, int cap)
{
	int n = 0;

	for (struct box *b = parent->root->hier; b && n < cap; b = b->hier_next) {
		for (struct box *a = b; a; a = a->parent) {
			if (a->parent == parent && a->node == node) {
				out[n++] = box_ref(b);
				break;
			}
		}
	}
	return n;
}

#endif
