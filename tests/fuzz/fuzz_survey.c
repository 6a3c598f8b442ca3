/*
 * fuzz_survey.c: `jostle survey` over one CI log (survey.c, through
 * logscan.c's block reader and the extractor table), plain or gzip, and
 * its reports. The first byte picks how the rest is stored: as it is (a
 * plain log, or a corrupt gzip stream when it starts with 1f 8b), or
 * compressed with zlib (so the fuzzer reaches the scanner through gzip
 * and, cut short by the byte's top bits, a truncated stream).
 */
#include "fuzz.h"

#include <sys/stat.h>

#include <zlib.h>

#include "signature/extractor.h"
#include "survey/survey.h"

static struct extractor_set *set;
static FILE *devnull;

static void warn(const char *line)
{
	(void)line;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (!set) {
		set = extractor_set_new();
		devnull = fopen("/dev/null", "we");
	}
	unsigned how = data[0];
	data++;
	size--;
	const char *path;
	if (how & 1) {
		char gz[400];
		snprintf(gz, sizeof(gz), "%s/log.gz", fuzz_dir());
		gzFile f = gzopen(gz, "wb1");
		if (!f)
			abort();
		if (size && gzwrite(f, data, (unsigned)size) != (int)size)
			abort();
		gzclose(f);
		if (how & 2) {   /* cut the stream short */
			struct stat st;
			if (stat(gz, &st) == 0 && st.st_size > 0 &&
			    truncate(gz, st.st_size - 1 - (off_t)((how >> 2) % st.st_size)) != 0)
				abort();
		}
		path = gz;
		struct survey *sv = survey_new(set);
		if ((how >> 6) & 1) {
			char err[256];
			survey_add_group(sv, "python=Python (3\\.\\d+t?)", err, sizeof(err));
		}
		survey_path(sv, path, warn);
		for (int fmt = SURVEY_TEXT; fmt <= SURVEY_JSON; fmt++)
			survey_write(sv, (enum survey_format)fmt, devnull);
		survey_free(sv);
		return 0;
	}
	path = fuzz_file("log.txt", data, size);
	struct survey *sv = survey_new(set);
	if ((how >> 1) & 1) {
		char err[256];
		survey_add_group(sv, "python=Python (3\\.\\d+t?)", err, sizeof(err));
		survey_set_since(sv, 1700000000);
	}
	survey_path(sv, path, warn);
	for (int fmt = SURVEY_TEXT; fmt <= SURVEY_JSON; fmt++)
		survey_write(sv, (enum survey_format)fmt, devnull);
	survey_free(sv);
	return 0;
}
