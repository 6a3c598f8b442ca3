/*
 * strvec.h: a NULL-terminated, growable vector of owned strings, usable
 * directly as argv or envp.
 *
 *   struct strvec v = STRVEC_INIT;
 *   strvec_push(&v, "x");       copies the string
 *   strvec_release(&v);         frees every string and the array
 */
#ifndef JOSTLE_STRVEC_H
#define JOSTLE_STRVEC_H

#include <stddef.h>

struct strvec {
	char **v;     /* owned; v[nr] == NULL once anything was pushed */
	size_t nr;
	size_t alloc;
};

#define STRVEC_INIT { NULL, 0, 0 }

void strvec_push(struct strvec *sv, const char *s);
void strvec_push_nodup(struct strvec *sv, char *s); /* takes ownership */
__attribute__((format(printf, 2, 3))) void strvec_pushf(struct strvec *sv, const char *fmt, ...);
/* Replace or add NAME=VALUE in an environment vector. */
void strvec_setenv(struct strvec *sv, const char *name, const char *value);
/* Index of NAME=... in an environment vector, or -1. */
ptrdiff_t strvec_env_index(const struct strvec *sv, const char *name);
/* Value of NAME in an environment vector, or NULL (borrowed). */
const char *strvec_getenv(const struct strvec *sv, const char *name);
void strvec_release(struct strvec *sv);

#endif
