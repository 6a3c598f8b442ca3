/*
 * xalloc.h: checked allocation. Running out of memory in the harness is not
 * something a caller can recover from, so these print one line and exit 3
 * (internal error) instead of returning NULL.
 */
#ifndef JOSTLE_XALLOC_H
#define JOSTLE_XALLOC_H

#include <stddef.h>

__attribute__((malloc, returns_nonnull)) void *xmalloc(size_t n);
__attribute__((malloc, returns_nonnull)) void *xcalloc(size_t nmemb, size_t size);
__attribute__((returns_nonnull)) void *xrealloc(void *p, size_t n);
__attribute__((malloc, returns_nonnull, nonnull)) char *xstrdup(const char *s);
__attribute__((malloc, returns_nonnull, nonnull)) char *xstrndup(const char *s, size_t n);
/* Formatted string in a fresh allocation (caller frees). */
__attribute__((malloc, returns_nonnull, format(printf, 1, 2))) char *xasprintf(const char *fmt, ...);

#define ALLOC_GROW(p, nr, alloc) do { \
	if ((nr) > (alloc)) { \
		size_t alloc_new_ = (alloc) < 8 ? 8 : (alloc) * 2; \
		while (alloc_new_ < (size_t)(nr)) alloc_new_ *= 2; \
		(p) = xrealloc((p), alloc_new_ * sizeof(*(p))); \
		(alloc) = alloc_new_; \
	} \
} while (0)

#endif
