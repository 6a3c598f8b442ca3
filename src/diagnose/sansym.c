/*
 * sansym.c: sanitizer reports symbolized by jostle (see sansym.h).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose/crashlog.h"
#include "diagnose/sansym.h"
#include "signature/frame.h"
#include "util/dbuf.h"
#include "util/strvec.h"
#include "util/banned.h"

static const char *const option_vars[] = {
	"ASAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS", "MSAN_OPTIONS", "LSAN_OPTIONS",
};

#define NVARS (sizeof(option_vars) / sizeof(option_vars[0]))

void sansym_env(struct strvec *env)
{
	/*
	 * The user decided when any of them says symbolize=: the runtimes
	 * of a combined build read each other's variables (UBSan's
	 * symbolize=0 overrides ASan's symbolize=1 in an ASan+UBSan program).
	 */
	for (size_t i = 0; i < NVARS; i++) {
		const char *cur = strvec_getenv(env, option_vars[i]);
		if (cur && strstr(cur, "symbolize="))
			return;
	}
	for (size_t i = 0; i < NVARS; i++) {
		const char *cur = strvec_getenv(env, option_vars[i]);
		char val[4096];
		/* options are separated by ':' (or spaces); an empty value is none */
		snprintf(val, sizeof(val), "%s%ssymbolize=0", cur ? cur : "", cur && *cur ? ":" : "");
		strvec_setenv(env, option_vars[i], val);
	}
}

/*
 * An unsymbolized frame line: optional blanks, "#N", blanks, "0xPC", blanks,
 * "(PATH+0xOFF)", optionally " (BuildId: HEX)", end of line. Sets the
 * offsets of the "0xPC" end, PATH and OFF.
 */
struct bare_frame {
	size_t pc_end;          /* just after the pc */
	size_t path, path_len;
	uint64_t off;
};

static bool bare_frame(const char *s, size_t n, struct bare_frame *f)
{
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i >= n || s[i] != '#' || i + 1 >= n || !isdigit((unsigned char)s[i + 1]))
		return false;
	i++;
	while (i < n && isdigit((unsigned char)s[i]))
		i++;
	if (i >= n || s[i] != ' ')
		return false;
	while (i < n && s[i] == ' ')
		i++;
	if (i + 2 >= n || s[i] != '0' || s[i + 1] != 'x')
		return false;
	i += 2;
	while (i < n && isxdigit((unsigned char)s[i]))
		i++;
	f->pc_end = i;
	while (i < n && s[i] == ' ')
		i++;
	if (i >= n || s[i] != '(' || i + 1 >= n || s[i + 1] != '/')
		return false;   /* "in fn" (symbolized) or no module */
	size_t open = i + 1, close = open;
	while (close < n && s[close] != ')')
		close++;
	if (close >= n)
		return false;
	/* the last "+0x" inside the parentheses: paths may hold '+' */
	size_t plus = 0;
	for (size_t k = open; k + 2 < close; k++)
		if (s[k] == '+' && s[k + 1] == '0' && s[k + 2] == 'x')
			plus = k;
	if (!plus)
		return false;
	char hex[24];
	size_t hl = close - (plus + 3);
	if (hl == 0 || hl >= sizeof(hex))
		return false;
	memcpy(hex, s + plus + 3, hl);
	hex[hl] = '\0';
	char *end;
	f->off = strtoull(hex, &end, 16);
	if (*end)
		return false;
	f->path = open;
	f->path_len = plus - open;
	i = close + 1;
	/* " (BuildId: ...)" and blanks are all that may follow */
	while (i < n && s[i] == ' ')
		i++;
	if (i < n && !strncmp(s + i, "(BuildId:", n - i < 9 ? n - i : 9)) {
		while (i < n && s[i] != ')')
			i++;
		i++;
	}
	while (i < n && (s[i] == ' ' || s[i] == '\r'))
		i++;
	return i >= n;
}

bool sansym_wanted(const char *text, size_t len)
{
	/* cheap first: an unsymbolized frame always prints "+0x" and ") " or ")\n" */
	if (!memmem(text, len, "+0x", 3))
		return false;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct bare_frame f;
		if (n > 4 && memchr(p, '#', n < 16 ? n : 16) && bare_frame(p, n, &f))
			return true;
		p += n + 1;
	}
	return false;
}

size_t sansym_rewrite(struct crashlog_symbols *cache, const char *text, size_t len, struct dbuf *out)
{
	const char *p = text, *end = text + len;
	size_t named = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct bare_frame f;
		char path[4096], fn[512], norm[512], src[1024];
		int line = 0;
		bool done = false;
		if (n > 4 && memchr(p, '#', n < 16 ? n : 16) && bare_frame(p, n, &f) &&
		    f.path_len < sizeof(path)) {
			memcpy(path, p + f.path, f.path_len);
			path[f.path_len] = '\0';
			/* (the cache remembers a file it could not read) */
			if (crashlog_symbols_lookup(cache, path, f.off, fn, sizeof(fn), src, sizeof(src),
						    &line) == 0 &&
			    *frame_normalize(fn, norm, sizeof(norm))) {
				dbuf_add(out, p, f.pc_end);
				dbuf_addf(out, " in %s", norm);
				if (src[0] && line > 0)
					dbuf_addf(out, " %s:%d", src, line);
				dbuf_adds(out, " (");
				dbuf_add(out, p + f.path, f.path_len);
				dbuf_addf(out, "+0x%" PRIx64 ")", f.off);
				named++;
				done = true;
			}
		}
		if (!done)
			dbuf_add(out, p, n);
		if (nl)
			dbuf_addc(out, '\n');
		p += n + 1;
	}
	return named;
}
