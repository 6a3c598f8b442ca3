/*
 * catalog.c: the site catalog (see catalog.h). A catalog holds hundreds of
 * sites at most (a Python interpreter reaches a few hundred), so a site is
 * found by a linear scan on its offset first; the tables are parsed by hand
 * because their writer is the preload library, which has no JSON.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose/crashlog.h"
#include "localize/catalog.h"
#include "signature/frame.h"
#include "util/dbuf.h"
#include "util/fileio.h"
#include "util/sitetable.h"
#include "util/xalloc.h"
#include "util/banned.h"

long catalog_find(const struct catalog *c, const char *module, uint64_t off)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].off == off && !strcmp(c->v[i].module, module))
			return (long)i;
	return -1;
}

static long add_site(struct catalog *c, const char *module, uint64_t off, const char *call)
{
	long i = catalog_find(c, module, off);
	if (i < 0) {
		ALLOC_GROW(c->v, c->n + 1, c->alloc);
		i = (long)c->n++;
		memset(&c->v[i], 0, sizeof(c->v[i]));
		c->v[i].module = xstrdup(module);
		c->v[i].off = off;
		snprintf(c->v[i].call, sizeof(c->v[i].call), "%s", call);
	}
	return i;
}

/* A module name of the table, or NULL when the index or the name is bad. */
static const char *table_module(const struct sitetable *t, int32_t m)
{
	if (m < 0 || m >= SITETABLE_MODS || (uint32_t)m >= t->nmods)
		return NULL;
	if (!memchr(t->mods[m], '\0', SITETABLE_PATH) || t->mods[m][0] != '/')
		return NULL;
	return t->mods[m];
}

long catalog_add_table(struct catalog *c, const void *data, size_t len)
{
	const struct sitetable *t = data;
	long sites = 0;

	if (len < sizeof(*t) || memcmp(t->magic, SITETABLE_MAGIC, sizeof(t->magic)) != 0 ||
	    t->version != SITETABLE_VERSION || t->slots != SITETABLE_SLOTS)
		return -EINVAL;
	for (size_t k = 0; k < SITETABLE_SLOTS; k++) {
		const struct sitetable_slot *s = &t->slot[k];
		const char *module = table_module(t, s->mod);
		if (!s->ready || !s->ra || !module || s->call < 0 || s->call >= CALL__COUNT)
			continue;
		long i = add_site(c, module, s->off, sitetable_call_name[s->call]);
		struct lsite *l = &c->v[i];
		l->calls += s->calls;
		l->delays += s->delays;
		l->procs++;
		const char *sm = table_module(t, s->start_mod);
		if (sm && !l->start_module) {
			l->start_module = xstrdup(sm);
			l->start_off = s->start_off;
		}
		sites++;
	}
	c->overflow += t->overflow;
	c->tables++;
	return sites;
}

static char *read_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	struct dbuf b;
	char chunk[8192];
	size_t n;

	if (!f)
		return NULL;
	dbuf_init(&b, 16u << 20);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (dbuf_add(&b, chunk, n) < 0)
			break;
	fclose(f);
	return dbuf_detach(&b, len);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int site_cmp(const void *pa, const void *pb)
{
	const struct lsite *a = pa, *b = pb;
	int c = strcmp(a->module, b->module);
	if (c)
		return c;
	return a->off < b->off ? -1 : a->off > b->off;
}

long catalog_read_dir(struct catalog *c, const char *dir)
{
	char *path = xasprintf("%s/sites", dir);
	DIR *d = opendir(path);
	struct dirent *e;
	char **names = NULL;
	size_t nr = 0, alloc = 0;
	long read = 0;

	if (!d) {
		int err = errno;
		free(path);
		return err == ENOENT ? 0 : -err;
	}
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && strstr(e->d_name, ".tab")) {
			ALLOC_GROW(names, nr + 1, alloc);
			names[nr++] = xstrdup(e->d_name);
		}
	closedir(d);
	/* the same catalog order whatever the directory order */
	if (nr)
		qsort(names, nr, sizeof(*names), name_cmp);
	for (size_t i = 0; i < nr; i++) {
		char *file = xasprintf("%s/%s", path, names[i]);
		size_t len;
		char *text = read_text(file, &len);
		if (text && catalog_add_table(c, text, len) >= 0)
			read++;
		free(text);
		free(file);
		free(names[i]);
	}
	free(names);
	free(path);
	/* table slots follow the hash of this process's addresses (ASLR):
	 * the catalog's order must not */
	if (c->n)
		qsort(c->v, c->n, sizeof(*c->v), site_cmp);
	return read;
}

/* The normalized name of the function at module+vaddr, or NULL. */
static char *name_at(struct crashlog_symbols *cache, const char *module, uint64_t vaddr,
		     char **src, int *line)
{
	char fn[512], file[1024], norm[512];
	int l = 0;

	if (crashlog_symbols_lookup(cache, module, vaddr, fn, sizeof(fn), file, sizeof(file), &l) < 0)
		return NULL;
	/* a call inlined from another function is that function's call */
	char inl[512];
	if (src && crashlog_symbols_inlined(cache, module, vaddr, inl, sizeof(inl)) == 0)
		snprintf(fn, sizeof(fn), "%s", inl);
	frame_normalize(fn, norm, sizeof(norm));
	if (src) {
		*src = file[0] ? xstrdup(file) : NULL;
		*line = l;
	}
	return xstrdup(norm[0] ? norm : fn);
}

void catalog_symbolize(struct catalog *c)
{
	struct crashlog_symbols *cache = crashlog_symbols_new();

	for (size_t i = 0; i < c->n; i++) {
		struct lsite *s = &c->v[i];
		/* the call instruction ends just before the return address */
		if (!s->fn && s->off)
			s->fn = name_at(cache, s->module, s->off - 1, &s->src, &s->line);
		if (!s->start_fn && s->start_module)
			s->start_fn = name_at(cache, s->start_module, s->start_off, NULL, NULL);
	}
	crashlog_symbols_free(cache);
}

int catalog_write_plan(const struct catalog *c, const char *path, const size_t *sites,
		       const double *prob, size_t n)
{
	struct dbuf b;
	const char **mods = NULL;
	size_t nmods = 0, alloc = 0;
	int rc;

	dbuf_init(&b, 64u << 20);
	dbuf_addf(&b, "jostle-sites 1\nmode %s\n", sites ? "mask" : "record");
	for (size_t i = 0; sites && i < n; i++) {
		const char *m = c->v[sites[i]].module;
		size_t k;
		for (k = 0; k < nmods && strcmp(mods[k], m); k++)
			;
		if (k == nmods) {
			ALLOC_GROW(mods, nmods + 1, alloc);
			mods[nmods++] = m;
			dbuf_addf(&b, "module %zu %s\n", k, m);
		}
	}
	for (size_t i = 0; sites && i < n; i++) {
		const struct lsite *s = &c->v[sites[i]];
		size_t k;
		for (k = 0; strcmp(mods[k], s->module); k++)
			;
		dbuf_addf(&b, "site %zu %zu %" PRIx64 " %.9g\n", i, k, s->off, prob[i]);
	}
	rc = fileio_write_file(path, b.buf ? b.buf : "", b.len);
	free(mods);
	dbuf_release(&b);
	return rc;
}

const char *catalog_function(const struct lsite *s)
{
	return s->start_fn ? s->start_fn : s->fn;
}

const char *catalog_describe(const struct lsite *s, char *buf, size_t len)
{
	if (s->start_fn) {
		char inner[512];
		struct lsite caller = *s;
		caller.start_fn = NULL;
		catalog_describe(&caller, inner, sizeof(inner));
		snprintf(buf, len, "start of %s (%s)", s->start_fn, inner);
	} else if (s->fn && s->src && s->line)
		snprintf(buf, len, "%s in %s at %s:%d", s->call, s->fn, frame_basename(s->src), s->line);
	else if (s->fn)
		snprintf(buf, len, "%s in %s (%s+0x%" PRIx64 ")", s->call, s->fn,
			 frame_basename(s->module), s->off);
	else
		snprintf(buf, len, "%s at %s+0x%" PRIx64, s->call, frame_basename(s->module), s->off);
	return buf;
}

void catalog_release(struct catalog *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].module);
		free(c->v[i].start_module);
		free(c->v[i].start_fn);
		free(c->v[i].fn);
		free(c->v[i].src);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}
