/* Block reading of plain and gzip logs, and the folder walk. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "survey/logscan.h"
#include "util/strvec.h"
#include "tap.h"

struct got {
	char *data;
	size_t len, blocks, bad_ends;
	int firsts;
};

static int on_block(void *ctx, const char *b, size_t len, bool first)
{
	struct got *g = ctx;
	g->data = realloc(g->data, g->len + len);
	memcpy(g->data + g->len, b, len);
	g->len += len;
	g->blocks++;
	g->firsts += first;
	if (len && b[len - 1] != '\n')
		g->bad_ends++;
	return 0;
}

static void on_file(void *ctx, const char *path)
{
	strvec_push(ctx, strrchr(path, '/') + 1);
}

static void on_err(void *ctx, const char *path, int err)
{
	strvec_pushf(ctx, "!%s %d", strrchr(path, '/') + 1, -err);
}

int main(void)
{
	char dir[] = "/tmp/jostle-logscan.XXXXXX";
	char path[512];
	if (!mkdtemp(dir))
		return 1;
	struct logscan ls;
	struct logscan_info info;
	logscan_init(&ls);

	/* 9 MiB of lines of varied length: blocks end at line ends, nothing lost */
	size_t n = 9u << 20;
	char *text = malloc(n);
	for (size_t i = 0, k = 0; i < n; i++, k++) {
		text[i] = (k % 97 == 96 || (i * 7) % 131 == 0) ? '\n' : (char)('a' + i % 26);
		if (text[i] == '\n')
			k = 0;
	}
	text[n - 1] = 'z'; /* the last line has no newline */
	snprintf(path, sizeof(path), "%s/plain.log", dir);
	FILE *f = fopen(path, "w");
	fwrite(text, 1, n, f);
	fclose(f);
	struct got g = { 0 };
	CHECK(logscan_file(&ls, path, on_block, &g, &info) == 0);
	CHECK(g.len == n && !memcmp(g.data, text, n));
	CHECK(g.blocks >= 3 && g.firsts == 1);
	CHECK(g.bad_ends == 1); /* only the last block */
	CHECK(info.bytes == n && !info.gzip);
	free(g.data);

	/* gzip: the same bytes back, as two concatenated members */
	snprintf(path, sizeof(path), "%s/z.log.gz", dir);
	gzFile z = gzopen(path, "wb");
	gzwrite(z, text, (unsigned)(n / 2));
	gzclose(z);
	z = gzopen(path, "ab");
	gzwrite(z, text + n / 2, (unsigned)(n - n / 2));
	gzclose(z);
	memset(&g, 0, sizeof(g));
	CHECK(logscan_file(&ls, path, on_block, &g, &info) == 0);
	CHECK(g.len == n && !memcmp(g.data, text, n));
	CHECK(info.gzip && info.bytes == n);
	free(g.data);

	/* a line longer than a block is cut, not lost */
	snprintf(path, sizeof(path), "%s/long.log", dir);
	f = fopen(path, "w");
	for (size_t i = 0; i < LOGSCAN_BLOCK + 100; i++)
		fputc('x', f);
	fputs("\nend\n", f);
	fclose(f);
	memset(&g, 0, sizeof(g));
	CHECK(logscan_file(&ls, path, on_block, &g, &info) == 0);
	CHECK(g.len == LOGSCAN_BLOCK + 105 && g.blocks == 2);
	free(g.data);

	/* truncated and corrupt gzip, empty file, folder, missing file */
	snprintf(path, sizeof(path), "%s/z.log.gz", dir);
	if (truncate(path, 200) != 0)
		return 1;
	memset(&g, 0, sizeof(g));
	CHECK(logscan_file(&ls, path, on_block, &g, &info) == -EILSEQ);
	CHECK_STR(ls.err, "truncated gzip data");
	free(g.data);
	snprintf(path, sizeof(path), "%s/bad.gz", dir);
	f = fopen(path, "w");
	fputs("\037\213\010\000\000\000\000\000\000\003garbage that is not deflate", f);
	fclose(f);
	memset(&g, 0, sizeof(g));
	CHECK(logscan_file(&ls, path, on_block, &g, &info) == -EILSEQ);
	CHECK(strstr(ls.err, "gzip") != NULL);
	free(g.data);
	snprintf(path, sizeof(path), "%s/empty.log", dir);
	fclose(fopen(path, "w"));
	memset(&g, 0, sizeof(g));
	CHECK(logscan_file(&ls, path, on_block, &g, &info) == 0 && g.blocks == 0);
	CHECK(logscan_file(&ls, dir, on_block, &g, &info) == -EISDIR);
	snprintf(path, sizeof(path), "%s/nope.log", dir);
	CHECK(logscan_file(&ls, path, on_block, &g, &info) == -ENOENT);

	/* walk: sorted, recursive, dangling link reported, folder links not followed */
	snprintf(path, sizeof(path), "%s/sub", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sub/a.log", dir);
	fclose(fopen(path, "w"));
	snprintf(path, sizeof(path), "%s/sub/dangling", dir);
	if (symlink("/nonexistent/x", path) != 0)
		return 1;
	snprintf(path, sizeof(path), "%s/sub/loop", dir);
	if (symlink(dir, path) != 0)
		return 1;
	struct strvec seen = STRVEC_INIT;
	logscan_walk(dir, on_file, on_err, &seen);
	struct strvec errs = STRVEC_INIT;
	size_t files = 0;
	for (size_t i = 0; i < seen.nr; i++)
		files += seen.v[i][0] != '!';
	CHECK(files == 6);
	CHECK(seen.nr == 7);
	CHECK_STR(seen.v[0], "bad.gz");
	CHECK_STR(seen.v[4], "a.log");
	CHECK_STR(seen.v[5], "!dangling 2");
	CHECK_STR(seen.v[6], "z.log.gz");
	strvec_release(&seen);
	strvec_release(&errs);

	logscan_release(&ls);
	free(text);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 1;
	return tap_done();
}
