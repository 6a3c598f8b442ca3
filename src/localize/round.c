/*
 * round.c: a series in a child process, and its runs read back (see
 * round.h). The parent's signal handler only records the signal; the
 * wait loop forwards it to the child once, which ends its runs and
 * records what finished, as `jostle run` does on Ctrl-C.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "localize/round.h"
#include "run/series.h"
#include "util/jsonr.h"
#include "util/xalloc.h"
#include "util/banned.h"

static volatile sig_atomic_t got_signal;
static struct sigaction old_int, old_term, old_hup;

static void on_signal(int sig)
{
	got_signal = sig;
}

void round_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
}

void round_signals_restore(void)
{
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
}

bool round_interrupted(void)
{
	return got_signal != 0;
}

int round_series(struct run_opts *o, const char *log)
{
	int status;
	bool forwarded = false;

	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0) {
			dup2(fd, STDERR_FILENO);
			close(fd);
		}
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		int st = series_run(o);
		fflush(NULL);
		_exit(st);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
		if (got_signal && !forwarded) {
			/* the terminal's Ctrl-C reached the child too; a
			 * signal sent to us alone did not */
			kill(pid, got_signal == SIGINT ? SIGINT : SIGTERM);
			forwarded = true;
		}
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 3;
}

int round_read(const char *dir, struct round_run **out, size_t *n)
{
	char *path = xasprintf("%s/runs.jsonl", dir);
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0, alloc = 0;

	free(path);
	*out = NULL;
	*n = 0;
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		cJSON *o = cJSON_Parse(line);
		const char *type = o ? jsonr_str(o, "type") : NULL;
		const char *outcome = o ? jsonr_str(o, "outcome") : NULL;
		const cJSON *run = o ? cJSON_GetObjectItemCaseSensitive(o, "run") : NULL;
		if (!type || strcmp(type, "run") || !outcome || !cJSON_IsNumber(run)) {
			cJSON_Delete(o);
			continue;
		}
		ALLOC_GROW(*out, *n + 1, alloc);
		struct round_run *r = &(*out)[(*n)++];
		memset(r, 0, sizeof(*r));
		r->run = (uint64_t)run->valuedouble;
		snprintf(r->seed, sizeof(r->seed), "%s", jsonr_str(o, "seed") ? jsonr_str(o, "seed") : "");
		if (!strcmp(outcome, "pass"))
			r->outcome = ROUND_PASS;
		else if (!strcmp(outcome, "ignored") || !strcmp(outcome, "cut") || !strcmp(outcome, "slow") ||
			 !strcmp(outcome, "skip"))
			r->outcome = ROUND_IGNORED;  /* in no rate: cut by the series' end, slow, skipped */
		else
			r->outcome = ROUND_FAIL;
		const cJSON *w = cJSON_GetObjectItemCaseSensitive(o, "wall_s");
		r->wall_s = cJSON_IsNumber(w) ? w->valuedouble : 0;
		const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(o, "config");
		const char *mask = cfg ? jsonr_str(cfg, "site_mask") : NULL;
		snprintf(r->mask, sizeof(r->mask), "%s", mask ? mask : "");
		cJSON_Delete(o);
	}
	free(line);
	fclose(f);
	return 0;
}
