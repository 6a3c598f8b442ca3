/*
 * cli_survey.c: `jostle survey`: options, then survey.c does the work and
 * survey_report.c writes the result. Usage errors are one line and exit 2.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "signature/extractor.h"
#include "signature/timestamp.h"
#include "survey/survey.h"
#include "util/banned.h"

static const char usage_text[] =
	"usage: jostle survey [options] PATH...\n"
	"\n"
	"Classify a folder of CI job logs by failure signature. PATH is a log file\n"
	"or a folder (read recursively); plain or gzip-compressed; one file is one\n"
	"job log. Signatures use the same normalization and id as 'jostle run'.\n"
	"\n"
	"  --rules FILE          user signatures, one per line: NAME<TAB>PCRE2; tried\n"
	"                        before the built-in extractors; named captures\n"
	"                        (?<name>...) become part of the key\n"
	"  --group-by KEY=REGEX  count each signature per KEY: the first capture of\n"
	"                        REGEX in the log's path, else in its first 256 KiB\n"
	"                        (e.g. python='Python (3\\.\\d+t?)'); repeatable\n"
	"  --since DATE          leave out logs older than DATE (YYYY-MM-DD or ISO 8601)\n"
	"  --format FMT          text (default), md, html or json\n"
	"  -o, --output FILE     write the report to FILE instead of stdout\n"
	"  -h, --help            this help\n"
	"\n"
	"A log's time is its first ISO 8601 timestamp (GitHub Actions line prefixes\n"
	"included), else the file's mtime. A log counts once per distinct signature;\n"
	"logs with no recognized failure are counted apart; unreadable files are\n"
	"reported on stderr, one line each, and skipped.\n"
	"Exit status: 0 the survey was written, 2 bad usage or no PATH that exists,\n"
	"3 internal error.\n";

static void warn_line(const char *line)
{
	fprintf(stderr, "jostle: survey: skipped %s\n", line);
}

int cmd_survey(int argc, char **argv)
{
	enum { OPT_RULES = 256, OPT_GROUP, OPT_SINCE, OPT_FORMAT };
	static const struct option longopts[] = {
		{ "rules", required_argument, NULL, OPT_RULES },
		{ "group-by", required_argument, NULL, OPT_GROUP },
		{ "since", required_argument, NULL, OPT_SINCE },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct extractor_set *set = extractor_set_new();
	struct survey *sv = survey_new(set);
	enum survey_format fmt = SURVEY_TEXT;
	const char *output = NULL;
	char err[256];
	int c, rc = EXIT_USAGE;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_RULES:
			if (extractor_set_load_rules(set, optarg, err, sizeof(err))) {
				cli_usage_error(NULL, "--rules '%s': %s", optarg, err);
				goto out;
			}
			break;
		case OPT_GROUP:
			if (survey_add_group(sv, optarg, err, sizeof(err))) {
				cli_usage_error(NULL, "--group-by '%s': %s", optarg, err);
				goto out;
			}
			break;
		case OPT_SINCE: {
			int64_t t;
			size_t n = strlen(optarg);
			if (timestamp_parse(optarg, n, false, &t) != n) {
				cli_usage_error(NULL, "--since '%s': expected a date, YYYY-MM-DD or "
						"YYYY-MM-DDTHH:MM[:SS][Z]", optarg);
				goto out;
			}
			survey_set_since(sv, t);
			break;
		}
		case OPT_FORMAT:
			if (!strcmp(optarg, "text"))
				fmt = SURVEY_TEXT;
			else if (!strcmp(optarg, "md"))
				fmt = SURVEY_MD;
			else if (!strcmp(optarg, "html"))
				fmt = SURVEY_HTML;
			else if (!strcmp(optarg, "json"))
				fmt = SURVEY_JSON;
			else {
				cli_usage_error(NULL, "--format '%s': expected text, md, html or json",
						optarg);
				goto out;
			}
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			rc = EXIT_OK;
			goto out;
		case ':':
			cli_usage_error("survey", "survey: option '%s' needs a value", argv[optind - 1]);
			goto out;
		default:
			cli_usage_error("survey", "survey: unknown option '%s'", argv[optind - 1]);
			goto out;
		}
	}
	if (optind >= argc) {
		cli_usage_error("survey", "survey: no PATH given");
		goto out;
	}
	/* a missing PATH beside others is skipped with a line (survey_path);
	 * with none there at all there is nothing to survey */
	int present = 0, first_errno = 0;
	for (int i = optind; i < argc; i++) {
		struct stat sb;
		if (stat(argv[i], &sb) == 0)
			present++;
		else if (!first_errno)
			first_errno = errno;
	}
	if (!present) {
		cli_usage_error(NULL, "survey: '%s'%s: %s; give a log file or a folder of logs",
				argv[optind], argc - optind > 1 ? " (and every other PATH)" : "",
				strerror(first_errno));
		goto out;
	}
	FILE *f = stdout;
	if (output && !(f = fopen(output, "w"))) {
		cli_usage_error(NULL, "-o '%s': %s", output, strerror(errno));
		goto out;
	}
	for (int i = optind; i < argc; i++)
		survey_path(sv, argv[i], warn_line);
	rc = EXIT_OK;
	if (survey_write(sv, fmt, f) || fflush(f)) {
		fprintf(stderr, "jostle: survey: cannot write the report: %s\n", strerror(errno));
		rc = EXIT_INTERNAL;
	}
	if (f != stdout && fclose(f)) {
		fprintf(stderr, "jostle: -o '%s': %s\n", output, strerror(errno));
		rc = EXIT_INTERNAL;
	}
out:
	survey_free(sv);
	extractor_set_free(set);
	return rc;
}
