/*
 * gdb.c: the reproducer until a failure with a core (see gdb.h). The
 * series is an ordinary one in DIR/gdb/ with --until first-failure, so
 * the failing run's record, log and core are where every report looks.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reproduce/gdb.h"
#include "reproduce/reproducer.h"
#include "reproduce/slice.h"
#include "run/series.h"
#include "util/clock.h"
#include "util/dbuf.h"
#include "util/escape.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define GDB_RUNS 200

/* The first failing run of DIR/runs.jsonl and its outcome; -1 when none. */
static int64_t first_failure(const char *dir, char *outcome, size_t len)
{
	char *path = xasprintf("%s/runs.jsonl", dir);
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	int64_t run = -1;

	free(path);
	while (f && run < 0 && getline(&line, &cap, f) > 0) {
		cJSON *o = cJSON_Parse(line);
		const cJSON *t = o ? cJSON_GetObjectItemCaseSensitive(o, "type") : NULL;
		const cJSON *out = o ? cJSON_GetObjectItemCaseSensitive(o, "outcome") : NULL;
		const cJSON *r = o ? cJSON_GetObjectItemCaseSensitive(o, "run") : NULL;
		if (cJSON_IsString(t) && !strcmp(t->valuestring, "run") && cJSON_IsString(out) && cJSON_IsNumber(r) &&
		    (!strcmp(out->valuestring, "fail") || !strcmp(out->valuestring, "crash") ||
		     !strcmp(out->valuestring, "hang"))) {
			run = (int64_t)r->valuedouble;
			snprintf(outcome, len, "%s", out->valuestring);
		}
		cJSON_Delete(o);
	}
	free(line);
	if (f)
		fclose(f);
	return run;
}

int reproduce_gdb(struct run_opts *o, const char *file, bool jobs_set)
{
	struct run_opts ro = *o;
	struct reproducer r;
	char why[768], outcome[16] = "";
	int status;

	reproducer_init(&r);
	ro.out_dir = xasprintf("%s/gdb", o->out_dir);
	if (mkdir(ro.out_dir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "jostle: cannot create '%s': %s\n", ro.out_dir, strerror(errno));
		free(ro.out_dir);
		return 3;
	}
	if (!o->pressure.replay) {
		/* after a search: its reproducer, attached to this build */
		if (reproducer_read(&r, file, why, sizeof(why)) < 0 ||
		    reproducer_apply(&r, &ro.pressure, &ro.jobs, jobs_set, why, sizeof(why)) < 0 ||
		    reproducer_attach(&r, &ro, why, sizeof(why)) < 0) {
			fprintf(stderr, "jostle: %s\n", why);
			reproducer_release(&r);
			free(ro.out_dir);
			return 2;
		}
		ro.runs = GDB_RUNS;
		ro.time_ns = 0;
	} else if (!ro.runs && !ro.time_ns) {
		ro.runs = GDB_RUNS;
	}
	ro.first_index = 0;
	ro.until = UNTIL_FIRST_FAILURE;
	ro.diag.core = true;
	ro.diag.keep_cores = true;
	ro.quiet = true;
	ro.no_report = true;
	ro.seed = o->seed ^ 0x6764625f72756e73ULL;
	if (!o->quiet)
		fprintf(stderr, "jostle: gdb: running the reproducer until a run fails, cores on (%s)\n", ro.out_dir);
	struct slice s = { 0 };
	status = slice_run(&ro, &s);
	int64_t run = status == 2 || status == 3 || status == 130 ? -1 : first_failure(ro.out_dir, outcome, sizeof(outcome));
	if (run >= 0) {
		char *core = xasprintf("%s/cores/%" PRId64 ".core", ro.out_dir, run);
		char *log = xasprintf("%s/logs/%" PRId64 ".log", ro.out_dir, run);
		if (access(core, R_OK) == 0) {
			fprintf(stderr, "jostle: gdb: run %" PRId64 " crashed after %.1f s; its core:\n", run, s.secs);
			printf("gdb %s %s\n", ro.path, core);
		} else {
			fprintf(stderr, "jostle: gdb: run %" PRId64 " failed (%s) after %.1f s without a core (it %s); "
				"its output is %s; to repeat it exactly:\n", run, outcome, s.secs,
				strcmp(outcome, "crash") ? "did not crash" : "dumped none: see ulimit -c and "
				"kernel.core_pattern", log);
			struct dbuf cmd;
			dbuf_init(&cmd, 1u << 20);
			dbuf_addf(&cmd, "jostle run --replay %s:%" PRId64 " -n 1 --", ro.out_dir, run);
			for (char **a = ro.argv; *a; a++) {
				dbuf_addc(&cmd, ' ');
				escape_shell(&cmd, *a);
			}
			printf("%s\n", dbuf_str(&cmd));
			dbuf_release(&cmd);
		}
		fflush(stdout);
		free(core);
		free(log);
		status = 1;
	} else if (status != 2 && status != 3 && status != 130) {
		fprintf(stderr, "jostle: gdb: no run failed under the reproducer in %" PRIu64 " runs (%.0f s)\n",
			s.runs ? s.runs : ro.runs, s.secs);
		status = 0;
	}
	reproducer_release(&r);
	free(ro.out_dir);
	return status;
}
