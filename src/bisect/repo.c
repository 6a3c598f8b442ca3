/*
 * repo.c: the git side of a bisection (see repo.h). Every question is one
 * git command with its output captured (child.h); the answers are parsed
 * here and nowhere else. git is asked with --no-pager semantics (output to
 * a pipe) and LC_ALL untouched: its messages reach the user only inside
 * our own one-line errors.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "bisect/child.h"
#include "bisect/repo.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define GIT_OUT_CAP (256u << 20)

/* git -C dir ARGS...: the exit status (-errno when git did not start), output in out. */
static int git(struct repo *r, const char *dir, struct dbuf *out, const char *const *args)
{
	struct strvec argv = STRVEC_INIT;
	strvec_push(&argv, "git");
	strvec_push(&argv, "-C");
	strvec_push(&argv, dir);
	for (const char *const *a = args; *a; a++)
		strvec_push(&argv, *a);
	dbuf_reset(out);
	struct child_req req = { .argv = argv.v, .out = out, .out_fd = -1, .stop = r->stop };
	int rc = child_run(&req);
	strvec_release(&argv);
	if (rc < 0)
		return rc;
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + (WIFSIGNALED(rc) ? WTERMSIG(rc) : 0);
}

/* The first line of out, without its newline, into a new string. */
static char *first_line(const struct dbuf *out)
{
	const char *s = dbuf_str(out);
	return xstrndup(s, strcspn(s, "\n"));
}

static bool is_hash(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");
	return (n == 40 || n == 64) && s[n] == '\0';
}

/* The full hash of the commit REV names, or NULL. */
static char *resolve(struct repo *r, const char *rev, struct dbuf *out)
{
	char *spec = xasprintf("%s^{commit}", rev);
	const char *args[] = { "rev-parse", "--verify", "--quiet", "--end-of-options", spec, NULL };
	int rc = git(r, r->top, out, args);
	free(spec);
	if (rc != 0)
		return NULL;
	char *h = first_line(out);
	if (!is_hash(h)) {
		free(h);
		return NULL;
	}
	return h;
}

int repo_open(struct repo *r, const char *dir, const char *good, const char *bad,
	      char *why, size_t whylen)
{
	struct dbuf out;
	char *g = NULL, *b = NULL;
	int rc;

	volatile sig_atomic_t *stop = r->stop;
	memset(r, 0, sizeof(*r));
	r->stop = stop;
	dbuf_init(&out, GIT_OUT_CAP);
	{
		const char *args[] = { "rev-parse", "--show-toplevel", NULL };
		rc = git(r, dir, &out, args);
	}
	if (rc < 0) {
		snprintf(why, whylen, "cannot run git: %s (install git, or put it on PATH)", strerror(-rc));
		goto fail;
	}
	if (rc != 0 || !out.len) {
		snprintf(why, whylen, "'%.200s' is not in a git repository; run jostle bisect inside the "
			 "repository to bisect", dir);
		rc = -EINVAL;
		goto fail;
	}
	r->top = first_line(&out);
	if (!(g = resolve(r, good, &out))) {
		snprintf(why, whylen, "--good '%.200s' is not a commit of the repository at '%.200s'", good, r->top);
		rc = -EINVAL;
		goto fail;
	}
	if (!(b = resolve(r, bad, &out))) {
		snprintf(why, whylen, "--bad '%.200s' is not a commit of the repository at '%.200s'", bad, r->top);
		rc = -EINVAL;
		goto fail;
	}
	if (!strcmp(g, b)) {
		snprintf(why, whylen, "--good '%.200s' and --bad '%.200s' are the same commit; "
			 "nothing lies between them", good, bad);
		rc = -EINVAL;
		goto fail;
	}
	{
		const char *args[] = { "merge-base", "--is-ancestor", g, b, NULL };
		rc = git(r, r->top, &out, args);
	}
	if (rc != 0) {
		snprintf(why, whylen, "--good '%.200s' is not an ancestor of --bad '%.200s'; "
			 "the good revision must come before the bad one", good, bad);
		rc = -EINVAL;
		goto fail;
	}
	strvec_push(&r->hash, g);
	{
		const char *args[] = { "log", "-1", "--format=%s", g, "--", NULL };
		strvec_push_nodup(&r->subject, git(r, r->top, &out, args) == 0 ? first_line(&out) : xstrdup(""));
	}
	{
		char *range = xasprintf("%s..%s", g, b);
		const char *args[] = { "log", "--first-parent", "--reverse", "--format=%H %s", range, "--", NULL };
		rc = git(r, r->top, &out, args);
		free(range);
	}
	if (rc != 0) {
		snprintf(why, whylen, "git log of '%.100s..%.100s' failed: %.200s", good, bad, dbuf_str(&out));
		rc = -EIO;
		goto fail;
	}
	for (char *s = out.buf, *e; s && *s; s = *e ? e + 1 : e) {
		e = s + strcspn(s, "\n");
		char save = *e;
		*e = '\0';
		char *sp = strchr(s, ' ');
		if (sp) {
			*sp = '\0';
			if (is_hash(s)) {
				strvec_push(&r->hash, s);
				strvec_push(&r->subject, sp + 1);
			}
			*sp = ' ';
		}
		*e = save;
	}
	r->n = r->hash.nr - 1;
	if (r->n < 1 || strcmp(r->hash.v[r->n], b) != 0) {
		snprintf(why, whylen, "cannot list the commits from '%.100s' to '%.100s'", good, bad);
		rc = -EIO;
		goto fail;
	}
	free(g);
	free(b);
	dbuf_release(&out);
	return 0;
fail:
	free(g);
	free(b);
	dbuf_release(&out);
	repo_release(r);
	r->stop = stop;
	return rc < 0 ? rc : -EINVAL;
}

void repo_release(struct repo *r)
{
	free(r->top);
	strvec_release(&r->hash);
	strvec_release(&r->subject);
	r->top = NULL;
	r->n = 0;
}

long repo_find(const struct repo *r, const char *hash)
{
	for (size_t i = 0; i < r->hash.nr; i++)
		if (!strcmp(r->hash.v[i], hash))
			return (long)i;
	return -1;
}

int repo_worktree_add(struct repo *r, size_t i, const char *path, char *why, size_t whylen)
{
	struct dbuf out;
	dbuf_init(&out, 1u << 20);
	const char *args[] = { "worktree", "add", "--detach", "--quiet", path, r->hash.v[i], NULL };
	int rc = git(r, r->top, &out, args);
	if (rc != 0) {
		const char *msg = dbuf_str(&out);
		snprintf(why, whylen, "cannot make a worktree of %.12s at '%.200s': %.*s", r->hash.v[i], path,
			 (int)strcspn(msg, "\n"), msg);
		rc = rc < 0 ? rc : -EIO;
	}
	dbuf_release(&out);
	return rc;
}

int repo_worktree_remove(struct repo *r, const char *path)
{
	struct dbuf out;
	dbuf_init(&out, 1u << 20);
	const char *args[] = { "worktree", "remove", "--force", "--force", path, NULL };
	int rc = git(r, r->top, &out, args);
	const char *prune[] = { "worktree", "prune", NULL };
	(void)git(r, r->top, &out, prune);
	dbuf_release(&out);
	return rc == 0 ? 0 : -EIO;
}

int repo_show_stat(struct repo *r, size_t i, struct dbuf *out)
{
	const char *args[] = { "show", "--stat", "--no-color", r->hash.v[i], "--", NULL };
	int rc = git(r, r->top, out, args);
	return rc == 0 ? 0 : -EIO;
}
