/*
 * extractor.c: the extractor table and the block scanner (see extractor.h).
 *
 * Speed comes from not running 30 patterns on every line: one JIT-compiled
 * alternation of all anchors (plain literals) runs over the whole block and
 * stops only at lines that contain one; such a line is cleaned (CI prefix,
 * colours) into a scratch buffer and only the extractors whose anchor it
 * contains run their own pattern on it. Nothing is allocated per line; a hit
 * allocates its strings once per distinct signature and log.
 *
 * Follow-ups (a sanitizer's frames, a traceback's exception line) keep a
 * small state across lines and blocks, so a report cut by a block boundary
 * is still read whole.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "signature/crash.h"
#include "signature/extractor.h"
#include "signature/key.h"
#include "signature/timestamp.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define T1 1
#define T2 2
#define T3 3

const struct extractor extractor_table[] = {
	/* tier 1: reports of a runtime or a test framework */
	{ .name = "asan", .kind = "asan", .outcome = "crash", .tier = T1,
	  .anchor = "AddressSanitizer: ",
	  .pattern = "(?:ERROR|WARNING): (AddressSanitizer: [^(]*?)(?: on | at |\\s*\\(|\\s*$)",
	  .key = "$1", .follow = FOLLOW_REPORT },
	{ .name = "tsan", .kind = "tsan", .outcome = "crash", .tier = T1,
	  .anchor = "ThreadSanitizer: ",
	  .pattern = "WARNING: (ThreadSanitizer: [^(]*?)(?:\\s*\\(|\\s*$)",
	  .key = "$1", .follow = FOLLOW_REPORT },
	{ .name = "lsan", .kind = "lsan", .outcome = "crash", .tier = T1,
	  .anchor = "LeakSanitizer: ",
	  .pattern = "ERROR: (LeakSanitizer: [^(]*?)\\s*$",
	  .key = "$1", .follow = FOLLOW_REPORT },
	{ .name = "msan", .kind = "msan", .outcome = "crash", .tier = T1,
	  .anchor = "MemorySanitizer: ",
	  .pattern = "WARNING: (MemorySanitizer: [^(]*?)(?: on | at |\\s*\\(|\\s*$)",
	  .key = "$1", .follow = FOLLOW_REPORT },
	{ .name = "ubsan", .kind = "ubsan", .outcome = "crash", .tier = T1,
	  .anchor = "runtime error: ",
	  .pattern = "(?:^|\\s)(?:\\S*/)?([^/\\s:]+:\\d+):\\d+: (runtime error: .*?)\\s*$",
	  .key = "$2", .frame = 1, .follow = FOLLOW_REPORT },
	{ .name = "compute-sanitizer", .kind = "compute-sanitizer", .outcome = "crash", .tier = T1,
	  .anchor = "========= ",
	  .pattern = "^=+ ((?:(?:Error|Warning): )?(?:Invalid|Race|Uninitialized|Leaked|Out-of-range|Misaligned|Barrier|Program hit) .*?)\\s*$",
	  .key = "$1", .follow = FOLLOW_REPORT },
	/* glibc's malloc checks: heap corruption, whatever the message (the
	 * same corruption is caught at another check, or as a SIGSEGV inside
	 * malloc: rundiag.c); the message stays the key line */
	{ .name = "glibc-abort", .outcome = "crash", .tier = T1,
	  .anchor = "(): ",
	  .pattern = "(?:^|: )((?:free|malloc|realloc|calloc|munmap_chunk|malloc_consolidate|_int_malloc|_int_free|_int_realloc|tcache_thread_shutdown)\\(\\): .*?)\\s*$",
	  .key = "heap corruption", .follow = FOLLOW_REPORT },
	{ .name = "glibc-abort", .outcome = "crash", .tier = T1,
	  .anchor = "double free or corruption",
	  .pattern = "(double free or corruption(?: \\(\\w+\\))?)",
	  .key = "heap corruption", .follow = FOLLOW_REPORT },
	{ .name = "glibc-abort", .outcome = "crash", .tier = T1,
	  .anchor = "corrupted ",
	  .pattern = "(corrupted (?:size vs\\. prev_size|double-linked list|top size|unsorted chunks)(?: \\(not small\\))?)",
	  .key = "heap corruption", .follow = FOLLOW_REPORT },
	/* an assert is its file, its function and its condition: the same
	 * condition in another file is another assert (the line number changes
	 * with every edit, the file does not) */
	{ .name = "assert", .outcome = "crash", .tier = T1,
	  .anchor = "Assertion `",
	  .pattern = "(?:(([\\w.+-]+\\.\\w+):)\\d+: )?(?:(\\w+): )?(Assertion `.*' failed\\.?)",
	  .key = "$1 $4", .frame = 3, .follow = FOLLOW_REPORT },
	{ .name = "python-fatal", .outcome = "crash", .tier = T1,
	  .anchor = "Fatal Python error: ",
	  .pattern = "(Fatal Python error: .*?)\\s*$",
	  .key = "$1", .follow = FOLLOW_REPORT },
	{ .name = "go-timeout", .outcome = "hang", .tier = T1,
	  .anchor = "panic: test timed out",
	  .pattern = "^panic: (test timed out after \\S+)",
	  .key = "panic: $1" },
	{ .name = "go-panic", .outcome = "fail", .tier = T1,
	  .anchor = "panic: ",
	  .pattern = "^panic: (.*?)(?: \\[recovered\\])?\\s*$",
	  .key = "panic: $1", .follow = FOLLOW_GO_FRAME },
	{ .name = "go-fatal", .outcome = "fail", .tier = T1,
	  .anchor = "fatal error: ",
	  .pattern = "^fatal error: (.*?)\\s*$",
	  .key = "fatal error: $1", .follow = FOLLOW_GO_FRAME },
	{ .name = "pytest", .outcome = "fail", .tier = T1,
	  .anchor = "FAILED ",
	  .pattern = "^FAILED (?!\\()(.+?)(?: - (.*?))?\\s*$",
	  .key = "$2", .test = 1 },
	{ .name = "pytest-error", .outcome = "fail", .tier = T1,
	  .anchor = "ERROR ",
	  .pattern = "^ERROR ([\\w./-]+\\.py(?:::.+?)?)(?: - (.*?))?\\s*$",
	  .key = "$2", .test = 1 },
	{ .name = "gtest", .outcome = "fail", .tier = T1,
	  .anchor = "[  FAILED  ] ",
	  .pattern = "^\\[  FAILED  \\] ([A-Za-z_]\\w*(?:/\\w+)?\\.\\w+(?:/\\w+)?)(?:, where .*| \\(\\d+ ms\\))?\\s*$",
	  .key = "[  FAILED  ] $1", .test = 1 },
	{ .name = "ctest", .outcome = "fail", .tier = T1,
	  .anchor = "***",
	  .pattern = "Test\\s+#\\d+: (\\S+) \\.*\\s*\\*\\*\\*(Failed|Timeout|Not Run|Exception: [\\w ]+?|[A-Z][\\w ]*?)\\s+\\d[\\d.]* sec",
	  .key = "ctest $1 ***$2", .test = 1 },
	{ .name = "go-fail", .outcome = "fail", .tier = T1,
	  .anchor = "--- FAIL: ",
	  .pattern = "^\\s*--- FAIL: (\\S+)",
	  .key = "--- FAIL: $1", .test = 1 },
	{ .name = "timeout", .outcome = "hang", .tier = T1,
	  .anchor = "TIMEOUT",
	  .pattern = "(?:^|[\\]:] )(TIMEOUT\\b(?!=)(?![:\\s]+\\d+\\s*$).*?)\\s*$",
	  .key = "$1" },
	{ .name = "timeout", .outcome = "hang", .tier = T1,
	  .anchor = "session exceeded",
	  .pattern = "(session exceeded .*?)\\s*$",
	  .key = "$1" },
	{ .name = "job-timeout", .outcome = "hang", .tier = T1,
	  .anchor = "exceeded the maximum execution time",
	  .pattern = "(has exceeded the maximum execution time of \\d+ \\w+)",
	  .key = "job $1" },
	/* tier 2: generic evidence */
	{ .name = "traceback", .outcome = "fail", .tier = T2,
	  .anchor = "Traceback (most recent call last)",
	  .pattern = "Traceback \\(most recent call last\\)",
	  .key = "", .follow = FOLLOW_PY_EXCEPTION },
	/* pytest's failure detail, "E       RuntimeError: message": the same key
	 * as its FAILED summary line, for a log without one (pytest killed, a
	 * summary cut off, -p no:terminal) */
	{ .name = "pytest-E", .outcome = "fail", .tier = T2,
	  .anchor = "E ",
	  .pattern = "^E {2,}((?:[A-Za-z_][\\w.]*\\.)?[A-Z]\\w*(?:Error|Exception|Failed|Failure|Exit|Interrupt)\\b(?::.*?)?)\\s*$",
	  .key = "$1" },
	/* its "E       assert (3 % 5) != 3": the key of a bare assert, ranked
	 * below the line above, so that `assert x, "msg"` keys on pytest's
	 * "E       AssertionError: msg" and not on the condition it explains */
	{ .name = "pytest-E-assert", .outcome = "fail", .tier = T2,
	  .anchor = "E ",
	  .pattern = "^E {2,}(assert .*?)\\s*$",
	  .key = "$1" },
	{ .name = "cuda", .outcome = "fail", .tier = T2,
	  .anchor = "CUDA_ERROR_",
	  .pattern = "\\b(CUDA_ERROR_[A-Z0-9_]+)",
	  .key = "$1", .verbatim = true },
	{ .name = "cuda", .outcome = "fail", .tier = T2,
	  .anchor = "cudaError",
	  .pattern = "\\b(cudaError[A-Za-z]+)",
	  .key = "$1", .verbatim = true },
	{ .name = "pytest-timeout", .outcome = "hang", .tier = T2,
	  .anchor = "+ Timeout +",
	  .pattern = "^\\++ Timeout \\++\\s*$",
	  .key = "pytest-timeout: Timeout", .verbatim = true },
	{ .name = "segfault", .outcome = "crash", .tier = T2,
	  .anchor = "Segmentation fault",
	  .pattern = "Segmentation fault",
	  .key = "Segmentation fault", .verbatim = true },
	{ .name = "segfault", .outcome = "crash", .tier = T2,
	  .anchor = "SIGSEGV",
	  .pattern = "\\bSIGSEGV\\b",
	  .key = "Segmentation fault", .verbatim = true },
	{ .name = "segfault", .outcome = "crash", .tier = T2,
	  .anchor = "rc=-11",
	  .pattern = "\\brc=-11\\b",
	  .key = "Segmentation fault", .verbatim = true },
	{ .name = "abort", .outcome = "crash", .tier = T2,
	  .anchor = "Aborted",
	  .pattern = "(?:^|[\\s:])Aborted(?: +\\(core dumped\\)|\\s*$)",
	  .key = "Aborted", .verbatim = true },
	{ .name = "oom", .outcome = "crash", .tier = T2,
	  .anchor = "Out of memory: Kill",
	  .pattern = "Out of memory: Kill(?:ed)? process",
	  .key = "Out of memory: Killed process", .verbatim = true },
	{ .name = "killed", .outcome = "crash", .tier = T2,
	  .anchor = " Killed",
	  .pattern = "\\d+ Killed(?: +\\S.*|\\s*)$",
	  .key = "Killed", .verbatim = true },
	{ .name = "bus-error", .outcome = "crash", .tier = T2,
	  .anchor = "Bus error",
	  .pattern = "\\bBus error\\b",
	  .key = "Bus error", .verbatim = true },
	{ .name = "illegal-instruction", .outcome = "crash", .tier = T2,
	  .anchor = "Illegal instruction",
	  .pattern = "\\bIllegal instruction\\b",
	  .key = "Illegal instruction", .verbatim = true },
	/* tier 3: exit codes */
	{ .name = "exit", .outcome = "exit", .tier = T3,
	  .anchor = "exit code",
	  .pattern = "\\bexit code[:=]? ?(-?[1-9]\\d*)\\b",
	  .key = "exit code $1", .verbatim = true },
	{ .name = "exit", .outcome = "exit", .tier = T3,
	  .anchor = "exit status",
	  .pattern = "\\bexit status[:=]? ?(-?[1-9]\\d*)\\b",
	  .key = "exit code $1", .verbatim = true },
	{ .name = "exit", .outcome = "exit", .tier = T3,
	  .anchor = "exited with code",
	  .pattern = "\\bexited with code[:=]? ?(-?[1-9]\\d*)\\b",
	  .key = "exit code $1", .verbatim = true },
	/* tier 4: `jostle run` only, last resorts (last match in the output wins) */
	{ .name = "exception", .outcome = "fail", .tier = EXTRACTOR_TIER_RUN_ONLY,
	  .pattern = "^((?:[A-Za-z_][\\w]*\\.)*[A-Z]\\w*(?:Error|Exception|Exit|Interrupt|Failure)(?::.*)?)$",
	  .key = "$1" },
	{ .name = "error", .outcome = "fail", .tier = EXTRACTOR_TIER_RUN_ONLY,
	  .pattern = "^(.*\\b(?:error|ERROR|Error|FAIL|FAILED|fatal|Fatal|FATAL|panic)\\b.*)$",
	  .key = "$1" },
};

const size_t extractor_count = sizeof(extractor_table) / sizeof(extractor_table[0]);

struct rule {
	char *name;
	pcre2_code *code;      /* the pattern, on a cleaned line */
	pcre2_code *raw;       /* on raw blocks: a leading ^ also allows a CI prefix */
	uint32_t ncap;
	/* named groups in group-number order */
	struct { uint32_t group; char *name; } *names;
	size_t nnames;
};

#define NEX (sizeof(extractor_table) / sizeof(extractor_table[0]))

/*
 * The prefilter: for each extractor, its anchor without edge punctuation and
 * the rarest byte pair in it (by a static estimate of byte frequencies in
 * logs). A bitmap of those pairs is tested at every byte of a block (one
 * load and a bit test); a set bit is verified against the anchors that own
 * the pair. This runs at memory-ish speed where a JIT alternation of 35
 * literals managed about 100 MB/s.
 */
struct pf_entry {
	uint8_t ex;     /* extractor index */
	uint8_t off;    /* offset of the pair in the trimmed anchor */
};

struct extractor_set {
	pcre2_code *code[NEX];
	const char *pf_anchor[NEX];      /* trimmed anchor (points into the table) */
	uint8_t pf_len[NEX];
	uint64_t pf_bits[65536 / 64];
	uint16_t pf_first[65536];        /* 1 + index of the first entry for a pair, 0 none */
	struct pf_entry pf[NEX];         /* sorted by pair */
	uint16_t pf_pair[NEX];
	size_t npf;
	struct rule *rules;
	size_t nrules, alloc;
};

/* Rough frequency of a byte in CI logs: lower is rarer. */
static unsigned byte_weight(unsigned char c)
{
	if (c == ' ')
		return 100;
	if (strchr("etaoinsr", c))
		return 60;
	if ((c >= '0' && c <= '9') || strchr("TZ.:/-_", c))
		return 50;
	if (strchr("hldcumpfg", c))
		return 30;
	if (c >= 'a' && c <= 'z')
		return 10;
	return 5;
}

static void prefilter_build(struct extractor_set *set)
{
	struct { uint16_t pair; struct pf_entry e; } tmp[NEX];
	size_t nt = 0;
	for (size_t i = 0; i < NEX; i++) {
		if (!extractor_table[i].anchor)
			continue;
		const char *a = extractor_table[i].anchor, *z = a + strlen(a);
		/* Raw lines may carry ANSI colours next to the anchor ("FAILED\e[0m "):
		 * the prefilter looks for the anchor without its edge punctuation. */
		while (a < z && strchr(" :+-[]=", *a))
			a++;
		while (z > a && strchr(" :+-[]=", z[-1]))
			z--;
		if (z - a < 2) {
			a = extractor_table[i].anchor;
			z = a + strlen(a);
		}
		set->pf_anchor[i] = a;
		set->pf_len[i] = (uint8_t)(z - a);
		size_t best = 0;
		unsigned bw = ~0u;
		for (size_t k = 0; k + 1 < (size_t)(z - a); k++) {
			unsigned w = byte_weight((unsigned char)a[k]) * byte_weight((unsigned char)a[k + 1]);
			if (w < bw) {
				bw = w;
				best = k;
			}
		}
		tmp[nt].pair = (uint16_t)((unsigned char)a[best] | (unsigned char)a[best + 1] << 8);
		tmp[nt].e.ex = (uint8_t)i;
		tmp[nt].e.off = (uint8_t)best;
		nt++;
	}
	/* sort by pair (insertion sort: 35 entries, once) */
	for (size_t i = 1; i < nt; i++)
		for (size_t k = i; k > 0 && tmp[k - 1].pair > tmp[k].pair; k--) {
			__typeof__(tmp[0]) t = tmp[k];
			tmp[k] = tmp[k - 1];
			tmp[k - 1] = t;
		}
	for (size_t i = 0; i < nt; i++) {
		set->pf[i] = tmp[i].e;
		set->pf_pair[i] = tmp[i].pair;
		if (!set->pf_first[tmp[i].pair])
			set->pf_first[tmp[i].pair] = (uint16_t)(i + 1);
		set->pf_bits[tmp[i].pair >> 6] |= 1ull << (tmp[i].pair & 63);
	}
	set->npf = nt;
}

/* Verified anchors whose pair starts at p (b..end is the searchable range). */
static uint64_t pf_verify(const struct extractor_set *set, const unsigned char *b,
			  const unsigned char *end, const unsigned char *p, unsigned pair)
{
	uint64_t mask = 0;
	for (size_t i = set->pf_first[pair] - 1u; i < set->npf && set->pf_pair[i] == pair; i++) {
		const struct pf_entry *e = &set->pf[i];
		const unsigned char *a = p - e->off;
		if (a >= b && a + set->pf_len[e->ex] <= end &&
		    !memcmp(a, set->pf_anchor[e->ex], set->pf_len[e->ex]))
			mask |= 1ull << e->ex;
	}
	return mask;
}

/* First position in b..end where some anchor occurs (end when none). */
static const unsigned char *pf_find(const struct extractor_set *set, const unsigned char *b,
				    const unsigned char *from, const unsigned char *end)
{
	const uint64_t *bits = set->pf_bits;
	for (const unsigned char *p = from; p + 1 < end; p++) {
		unsigned h = p[0] | (unsigned)p[1] << 8;
		if ((bits[h >> 6] >> (h & 63)) & 1) {
			if (pf_verify(set, b, end, p, h))
				return p;
		}
	}
	return end;
}

/* Every extractor whose anchor occurs in the line s..s+n, as a bit mask. */
static uint64_t pf_line_mask(const struct extractor_set *set, const unsigned char *s, size_t n)
{
	uint64_t mask = 0;
	const uint64_t *bits = set->pf_bits;
	for (size_t i = 0; i + 1 < n; i++) {
		unsigned h = s[i] | (unsigned)s[i + 1] << 8;
		if ((bits[h >> 6] >> (h & 63)) & 1)
			mask |= pf_verify(set, s, s + n, s + i, h);
	}
	return mask;
}

struct extractor_pending {
	bool active;
	const struct extractor *ex;
	int rank;
	int state;
	unsigned lines_left;
	struct dbuf key, key_line, test, frame, window;
};

#define REPORT_LINES 200            /* lines of a report given to the crash parser */
#define REPORT_BYTES (64u << 10)

static pcre2_code *compile(const char *pattern, uint32_t opts, char *err, size_t errlen)
{
	int ec;
	PCRE2_SIZE off;
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, opts, &ec, &off, NULL);
	if (!c) {
		PCRE2_UCHAR msg[120];
		pcre2_get_error_message(ec, msg, sizeof(msg));
		snprintf(err, errlen, "%s at offset %zu", (char *)msg, (size_t)off);
		return NULL;
	}
	/* JIT is an optimization: without it (some architectures) matching still works. */
	(void)pcre2_jit_compile(c, PCRE2_JIT_COMPLETE);
	return c;
}

struct extractor_set *extractor_set_new(void)
{
	struct extractor_set *set = xcalloc(1, sizeof(*set));
	char err[160];
	_Static_assert(NEX <= 64, "the line mask holds 64 extractors");
	for (size_t i = 0; i < extractor_count; i++) {
		const struct extractor *e = &extractor_table[i];
		/* Lines are matched as bytes: invalid UTF-8 in logs must not stop a match. */
		set->code[i] = compile(e->pattern, 0, err, sizeof(err));
		if (!set->code[i]) {
			fprintf(stderr, "jostle: internal error: extractor '%s': %s\n", e->name, err);
			exit(3);
		}
	}
	prefilter_build(set);
	return set;
}

int extractor_set_add_rule(struct extractor_set *set, const char *name, const char *pattern,
			   char *err, size_t errlen)
{
	pcre2_code *c = compile(pattern, PCRE2_MULTILINE, err, errlen);
	if (!c)
		return -EINVAL;
	/* Blocks are searched raw, where a line may start with a GitHub Actions
	 * timestamp and "##[error]": a rule anchored with ^ must still find its
	 * line there. The captures are then taken on the cleaned line. */
	pcre2_code *raw = NULL;
	if (pattern[0] == '^') {
		char *p = xasprintf("^(?:\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z )?(?:##\\[error\\])?(?:%s)", pattern + 1);
		raw = compile(p, PCRE2_MULTILINE, err, errlen);
		free(p);
		if (!raw) {
			pcre2_code_free(c);
			return -EINVAL;
		}
	}
	ALLOC_GROW(set->rules, set->nrules + 1, set->alloc);
	struct rule *r = &set->rules[set->nrules++];
	memset(r, 0, sizeof(*r));
	r->name = xstrdup(name);
	r->code = c;
	r->raw = raw ? raw : c;
	pcre2_pattern_info(c, PCRE2_INFO_CAPTURECOUNT, &r->ncap);
	uint32_t count = 0, entry = 0;
	PCRE2_SPTR table = NULL;
	pcre2_pattern_info(c, PCRE2_INFO_NAMECOUNT, &count);
	pcre2_pattern_info(c, PCRE2_INFO_NAMEENTRYSIZE, &entry);
	pcre2_pattern_info(c, PCRE2_INFO_NAMETABLE, &table);
	if (count) {
		r->names = xcalloc(count, sizeof(*r->names));
		/* The name table is sorted by name; the key wants group order. */
		for (uint32_t i = 0; i < count; i++) {
			const unsigned char *ent = table + (size_t)i * entry;
			r->names[i].group = (uint32_t)(ent[0] << 8 | ent[1]);
			r->names[i].name = xstrdup((const char *)ent + 2);
		}
		r->nnames = count;
		for (size_t i = 1; i < count; i++)
			for (size_t k = i; k > 0 && r->names[k - 1].group > r->names[k].group; k--) {
				__typeof__(r->names[0]) t = r->names[k];
				r->names[k] = r->names[k - 1];
				r->names[k - 1] = t;
			}
	}
	return 0;
}

int extractor_set_load_rules(struct extractor_set *set, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		int e = errno;
		snprintf(err, errlen, "%s", strerror(e));
		return -e;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int lineno = 0, rc = 0;
	while ((n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n == 0 || line[0] == '#')
			continue;
		char *tab = strchr(line, '\t');
		if (!tab || tab == line || !tab[1]) {
			snprintf(err, errlen, "line %d: expected NAME<TAB>PCRE2-PATTERN", lineno);
			rc = -EINVAL;
			break;
		}
		*tab = '\0';
		char why[160];
		if (extractor_set_add_rule(set, line, tab + 1, why, sizeof(why))) {
			snprintf(err, errlen, "line %d: rule '%s': %s", lineno, line, why);
			rc = -EINVAL;
			break;
		}
	}
	free(line);
	fclose(f);
	return rc;
}

void extractor_set_free(struct extractor_set *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < extractor_count; i++)
		pcre2_code_free(set->code[i]);
	for (size_t i = 0; i < set->nrules; i++) {
		free(set->rules[i].name);
		if (set->rules[i].raw != set->rules[i].code)
			pcre2_code_free(set->rules[i].raw);
		pcre2_code_free(set->rules[i].code);
		for (size_t k = 0; k < set->rules[i].nnames; k++)
			free(set->rules[i].names[k].name);
		free(set->rules[i].names);
	}
	free(set->rules);
	free(set);
}

/* ---- lines ---------------------------------------------------------- */

#define LINE_CAP (64u << 10)

void extractor_clean_line(const char *s, size_t n, struct dbuf *out)
{
	dbuf_reset(out);
	size_t i = timestamp_ci_prefix(s, n);
	if (n - i >= 9 && !memcmp(s + i, "##[error]", 9))
		i += 9;
	if (n - i > LINE_CAP)
		n = i + LINE_CAP;
	while (i < n) {
		const char *esc = memchr(s + i, 0x1b, n - i);
		size_t run = esc ? (size_t)(esc - (s + i)) : n - i;
		dbuf_add(out, s + i, run);
		i += run;
		if (i < n && s[i + 0] == 0x1b && i + 1 < n && s[i + 1] == '[') {
			/* CSI: ESC [ parameters final-byte */
			for (i += 2; i < n && !((unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7e); i++)
				;
			i++;
		} else if (i < n) {
			i++; /* a lone ESC */
		}
	}
	/* CR and NUL: drop the one, blank the other, in place */
	size_t k = 0;
	for (size_t j = 0; j < out->len; j++) {
		char c = out->buf[j];
		if (c == '\r' || c == '\n')
			continue;
		out->buf[k++] = c ? c : ' ';
	}
	if (out->buf) {
		out->len = k;
		out->buf[k] = '\0';
	}
}

static const char *line_str(const struct dbuf *b, size_t *len)
{
	*len = b->len;
	return dbuf_str(b);
}

/* ---- hits ----------------------------------------------------------- */

void extractor_scan_init(struct extractor_scan *sc, const struct extractor_set *set)
{
	memset(sc, 0, sizeof(*sc));
	sc->set = set;
	sc->md = pcre2_match_data_create(32, NULL);
	if (!sc->md) {
		fprintf(stderr, "jostle: out of memory\n");
		exit(3);
	}
	sc->pend = xcalloc(1, sizeof(*sc->pend));
	dbuf_init(&sc->pend->key, LINE_CAP);
	dbuf_init(&sc->pend->key_line, LINE_CAP);
	dbuf_init(&sc->pend->test, LINE_CAP);
	dbuf_init(&sc->pend->frame, LINE_CAP);
	dbuf_init(&sc->pend->window, REPORT_BYTES + LINE_CAP + 2);
	dbuf_init(&sc->line, LINE_CAP + 1);
	dbuf_init(&sc->key, 2 * LINE_CAP);
	dbuf_init(&sc->tmp, 2 * LINE_CAP);
}

static void hit_release(struct extractor_hit *h)
{
	free(h->key);
	free(h->key_line);
	strvec_release(&h->frames);
	strvec_release(&h->tests);
}

void extractor_scan_reset(struct extractor_scan *sc)
{
	for (size_t i = 0; i < sc->nhits; i++)
		hit_release(&sc->hits[i]);
	sc->nhits = 0;
	sc->dropped = sc->seq = 0;
	sc->best_tier = 0;
	sc->pend->active = false;
}

void extractor_scan_release(struct extractor_scan *sc)
{
	extractor_scan_reset(sc);
	free(sc->hits);
	pcre2_match_data_free(sc->md);
	dbuf_release(&sc->pend->key);
	dbuf_release(&sc->pend->key_line);
	dbuf_release(&sc->pend->test);
	dbuf_release(&sc->pend->frame);
	dbuf_release(&sc->pend->window);
	free(sc->crash);
	free(sc->pend);
	dbuf_release(&sc->line);
	dbuf_release(&sc->key);
	dbuf_release(&sc->tmp);
	memset(sc, 0, sizeof(*sc));
}

static char *trimmed_dup(const char *s, size_t n, size_t cap)
{
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return xstrndup(s, n < cap ? n : cap);
}

/*
 * Record one finding. key_text is the key before normalization; test may be
 * NULL/empty; frames (normalized, innermost first) may be NULL.
 */
static void add_hit(struct extractor_scan *sc, const char *extractor, const char *kind, bool finer, int tier,
		    int rank, bool verbatim, const char *key_text, size_t key_len,
		    const char *line, size_t line_len, const char *test, size_t test_len,
		    const struct strvec *frames)
{
	dbuf_reset(&sc->key);
	if (verbatim)
		dbuf_add(&sc->key, key_text, key_len < KEY_MAX ? key_len : KEY_MAX);
	else
		key_normalize(key_text, key_len, &sc->key);
	char id[9];
	key_id(kind, dbuf_str(&sc->key), frames ? frames->v : NULL, frames ? frames->nr : 0, id);
	struct extractor_hit *h = NULL;
	for (size_t i = 0; i < sc->nhits; i++)
		if (!memcmp(sc->hits[i].id, id, 9) && sc->hits[i].tier == tier) {
			h = &sc->hits[i];
			break;
		}
	if (!h) {
		if (sc->nhits >= EXTRACTOR_MAX_HITS) {
			sc->dropped++;
			return;
		}
		ALLOC_GROW(sc->hits, sc->nhits + 1, sc->alloc);
		h = &sc->hits[sc->nhits++];
		memset(h, 0, sizeof(*h));
		h->extractor = extractor;
		snprintf(h->kind, sizeof(h->kind), "%s", kind);
		h->finer_kind = finer;
		h->tier = tier;
		h->rank = rank;
		h->key = xstrdup(dbuf_str(&sc->key));
		for (size_t i = 0; frames && i < frames->nr; i++)
			strvec_push(&h->frames, frames->v[i]);
		memcpy(h->id, id, 9);
	}
	/* The last occurrence's line is the example (a traceback's final form). */
	free(h->key_line);
	h->key_line = trimmed_dup(line, line_len, 1000);
	h->count++;
	h->seq = ++sc->seq;
	if (h->rank > rank)
		h->rank = rank;
	if (test && test_len && h->tests.nr < EXTRACTOR_MAX_TESTS) {
		char *t = trimmed_dup(test, test_len, 500);
		bool seen = false;
		for (size_t i = 0; i < h->tests.nr && !seen; i++)
			seen = !strcmp(h->tests.v[i], t);
		if (seen)
			free(t);
		else
			strvec_push_nodup(&h->tests, t);
	}
	if (!sc->best_tier || tier < sc->best_tier)
		sc->best_tier = tier;
}

static const char *ex_kind(const struct extractor *e)
{
	return e->kind ? e->kind : e->outcome;
}

static void group(const struct extractor_scan *sc, int g, const char *s, const char **p, size_t *n)
{
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(sc->md);
	uint32_t count = pcre2_get_ovector_count(sc->md);
	*p = NULL;
	*n = 0;
	if (g < 0 || (uint32_t)g >= count || ov[2 * g] == PCRE2_UNSET)
		return;
	*p = s + ov[2 * g];
	*n = ov[2 * g + 1] - ov[2 * g];
}

/* Expand a key template from the last match over s into out. */
static void expand_key(const struct extractor_scan *sc, const char *tmpl, const char *s,
		       struct dbuf *out)
{
	const char *p;
	size_t n;
	dbuf_reset(out);
	if (!*tmpl) {
		group(sc, 0, s, &p, &n);
		dbuf_add(out, p, n);
		return;
	}
	for (; *tmpl; tmpl++) {
		if (tmpl[0] == '$' && tmpl[1] >= '0' && tmpl[1] <= '9') {
			group(sc, tmpl[1] - '0', s, &p, &n);
			if (p)
				dbuf_add(out, p, n);
			tmpl++;
		} else {
			dbuf_addc(out, *tmpl);
		}
	}
	/* An empty expansion (an absent optional group) leaves only the literal
	 * part; the caller falls back to the test name. */
}

static bool only_literal(const char *tmpl, const struct dbuf *expanded)
{
	/* true when every $N in the template expanded to nothing */
	size_t lit = 0;
	for (const char *t = tmpl; *t; t++) {
		if (t[0] == '$' && t[1] >= '0' && t[1] <= '9')
			t++;
		else
			lit++;
	}
	return strchr(tmpl, '$') && expanded->len == lit;
}

static void pend_settle(struct extractor_scan *sc, const char *found, size_t found_len);

/* One frame (a capture group, a path cut to its last component) as a vector. */
static void one_frame(struct strvec *v, const char *p, size_t n)
{
	const char *base = p;
	for (size_t i = 0; i < n; i++)
		if (p[i] == '/')
			base = p + i + 1;
	n -= (size_t)(base - p);
	while (n && (*base == ' ' || *base == '\t')) {
		base++;
		n--;
	}
	while (n && (base[n - 1] == ' ' || base[n - 1] == '\t'))
		n--;
	if (n)
		strvec_push_nodup(v, xstrndup(base, n < 200 ? n : 200));
}

static void start_hit(struct extractor_scan *sc, const struct extractor *e, int rank,
		      const char *line, size_t len)
{
	struct extractor_pending *pd = sc->pend;
	const char *tp = NULL, *fp = NULL;
	size_t tn = 0, fn = 0;
	if (e->test)
		group(sc, e->test, line, &tp, &tn);
	if (e->frame)
		group(sc, e->frame, line, &fp, &fn);
	if (e->follow == FOLLOW_NONE) {
		struct strvec fr = STRVEC_INIT;
		if (fn)
			one_frame(&fr, fp, fn);
		expand_key(sc, e->key, line, &sc->tmp);
		if (only_literal(e->key, &sc->tmp) && tn) {
			dbuf_reset(&sc->tmp);
			dbuf_add(&sc->tmp, tp, tn);
		}
		add_hit(sc, e->name, ex_kind(e), e->kind != NULL, e->tier, rank, e->verbatim, sc->tmp.buf, sc->tmp.len,
			line, len, tp, tn, &fr);
		strvec_release(&fr);
		return;
	}
	if (pd->active)
		pend_settle(sc, NULL, 0);
	pd->active = true;
	pd->ex = e;
	pd->rank = rank;
	pd->state = 0;
	pd->lines_left = e->follow == FOLLOW_PY_EXCEPTION ? 1000 : REPORT_LINES;
	expand_key(sc, e->key, line, &pd->key);
	dbuf_reset(&pd->key_line);
	dbuf_add(&pd->key_line, line, len);
	dbuf_reset(&pd->test);
	if (tn)
		dbuf_add(&pd->test, tp, tn);
	dbuf_reset(&pd->frame);
	if (fn)
		dbuf_add(&pd->frame, fp, fn);
	dbuf_reset(&pd->window);
	if (e->follow == FOLLOW_REPORT) {
		dbuf_add(&pd->window, line, len);
		dbuf_addc(&pd->window, '\n');
	}
}

/*
 * Finish the pending hit. found: the traceback's exception line, or the Go
 * frame, when the follow-up found it. A report's window goes through the
 * crash parser (crash.h), exactly as `jostle explain` and diagnosis do:
 * its finer kind and its top program frames become the signature's.
 */
static void pend_settle(struct extractor_scan *sc, const char *found, size_t found_len)
{
	struct extractor_pending *pd = sc->pend;
	const struct extractor *e = pd->ex;
	if (!pd->active)
		return;
	pd->active = false;
	if (e->follow == FOLLOW_PY_EXCEPTION) {
		/* the exception line is the key and the example; without it a
		 * traceback says nothing */
		if (found)
			add_hit(sc, e->name, ex_kind(e), e->kind != NULL, e->tier, pd->rank, false, found,
				found_len, found, found_len, NULL, 0, NULL);
		return;
	}
	struct strvec fr = STRVEC_INIT;
	const char *kind = ex_kind(e);
	bool finer = e->kind != NULL;
	if (e->follow == FOLLOW_GO_FRAME && found) {
		strvec_push_nodup(&fr, xstrndup(found, found_len));
	} else if (e->follow == FOLLOW_REPORT) {
		if (!sc->crash)
			sc->crash = xmalloc(sizeof(*sc->crash));
		if (crash_parse(dbuf_str(&pd->window), pd->window.len, sc->crash)) {
			const struct evidence *ev = &sc->crash->ev;
			if (ev->kind[0]) {
				kind = ev->kind;
				finer = true;
			}
			for (size_t i = 0; i < ev->nframes; i++)
				strvec_push(&fr, ev->frames[i]);
		}
	}
	if (!fr.nr && pd->frame.len)
		one_frame(&fr, pd->frame.buf, pd->frame.len);
	add_hit(sc, e->name, kind, finer, e->tier, pd->rank, e->verbatim,
		dbuf_str(&pd->key), pd->key.len, dbuf_str(&pd->key_line), pd->key_line.len,
		dbuf_str(&pd->test), pd->test.len, &fr);
	strvec_release(&fr);
}

static bool starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && !memcmp(s, prefix, k);
}

/* Go: "example.com/pkg.(*Pool).drain(0xc000010000)" -> "pkg.(*Pool).drain". */
static bool go_frame(const char *s, size_t n, const char **fn, size_t *fnl)
{
	if (!n || s[0] == '\t' || s[0] == ' ' || s[n - 1] != ')')
		return false;
	const char *open = NULL;
	for (size_t i = n; i > 0; i--)
		if (s[i - 1] == '(') {
			open = s + i - 1;
			break;
		}
	if (!open || open == s)
		return false;
	const char *a = s;
	for (const char *p = s; p < open; p++)
		if (*p == '/')
			a = p + 1;
	size_t l = (size_t)(open - a);
	if (starts(a, l, "panic") || starts(a, l, "runtime.") || starts(a, l, "testing.") ||
	    starts(a, l, "created by") || starts(a, l, "sync."))
		return false;
	*fn = a;
	*fnl = l;
	return true;
}

/*
 * A line below a report's first line. The report's lines go to the crash
 * parser, up to REPORT_LINES and REPORT_BYTES; they are still scanned for
 * findings of their own, except the lines that crash_report_line() says are
 * inside the report: those are consumed, so that the second record of a
 * compute-sanitizer report (the API error a memcheck error causes) does not
 * become a finding that outranks the first. True when consumed.
 */
static bool follow_report(struct extractor_scan *sc, const char *s, size_t n)
{
	struct extractor_pending *pd = sc->pend;
	enum crash_line at = crash_report_line(pd->ex->kind, s, n);
	bool room = pd->lines_left > 0 && pd->window.len + n + 1 <= REPORT_BYTES;
	if (room) {
		pd->lines_left--;
		dbuf_add(&pd->window, s, n);
		dbuf_addc(&pd->window, '\n');
	}
	if (at == CRASH_LINE_END || (!room && at != CRASH_LINE_IN))
		pend_settle(sc, NULL, 0);
	return at == CRASH_LINE_IN;
}

/* One line while a follow-up is pending. True when the line was consumed. */
static bool follow_line(struct extractor_scan *sc, const char *s, size_t n)
{
	struct extractor_pending *pd = sc->pend;
	const char *fn;
	size_t fnl;
	if (pd->ex->follow == FOLLOW_REPORT)
		return follow_report(sc, s, n);
	if (pd->lines_left-- == 0) {
		pend_settle(sc, NULL, 0);
		return false;
	}
	switch (pd->ex->follow) {
	case FOLLOW_REPORT:
		break;	/* follow_report() */
	case FOLLOW_GO_FRAME:
		if (pd->state == 0) {
			if (starts(s, n, "goroutine ") && n && s[n - 1] == ':')
				pd->state = 1;
			return false;
		}
		if (go_frame(s, n, &fn, &fnl)) {
			pend_settle(sc, fn, fnl);
			return true;
		}
		if (n == 0)
			pend_settle(sc, NULL, 0);
		return false;
	case FOLLOW_PY_EXCEPTION:
		if (n == 0 || s[0] == ' ' || s[0] == '\t')
			return true;
		pend_settle(sc, s, n);
		return true;
	case FOLLOW_NONE:
		break;
	}
	pend_settle(sc, NULL, 0);
	return false;
}

static bool rule_line(struct extractor_scan *sc, const char *line, size_t len);

/* A line (raw bytes) with the mask of the anchors it contains. */
static void scan_line(struct extractor_scan *sc, const char *raw, size_t rawn, uint64_t mask)
{
	size_t n;
	extractor_clean_line(raw, rawn, &sc->line);
	const char *s = line_str(&sc->line, &n);
	if (sc->pend->active && follow_line(sc, s, n))
		return;
	const struct extractor_set *set = sc->set;
	for (size_t i = 0; mask && i < extractor_count; i++) {
		if (!(mask >> i & 1))
			continue;
		if (pcre2_match(set->code[i], (PCRE2_SPTR)s, n, 0, 0, sc->md, NULL) < 0)
			continue;
		start_hit(sc, &extractor_table[i], (int)(set->nrules + i), s, n);
		return;
	}
}

/* User rules: named groups become part of the key ("name k=v k=v"). */
static bool rule_line(struct extractor_scan *sc, const char *s, size_t n)
{
	const struct extractor_set *set = sc->set;
	for (size_t r = 0; r < set->nrules; r++) {
		const struct rule *ru = &set->rules[r];
		if (pcre2_match(ru->code, (PCRE2_SPTR)s, n, 0, 0, sc->md, NULL) < 0)
			continue;
		dbuf_reset(&sc->tmp);
		dbuf_adds(&sc->tmp, ru->name);
		for (size_t k = 0; k < ru->nnames; k++) {
			const char *p;
			size_t l;
			group(sc, (int)ru->names[k].group, s, &p, &l);
			dbuf_addf(&sc->tmp, " %s=", ru->names[k].name);
			if (p)
				dbuf_add(&sc->tmp, p, l);
		}
		/* keep the rule's name out of normalization */
		size_t namelen = strlen(ru->name);
		dbuf_reset(&sc->key);
		dbuf_add(&sc->key, ru->name, namelen);
		struct dbuf rest;
		dbuf_init(&rest, 2 * LINE_CAP);
		if (sc->tmp.len > namelen) {
			dbuf_addc(&sc->key, ' ');
			key_normalize(sc->tmp.buf + namelen, sc->tmp.len - namelen, &rest);
			dbuf_add(&sc->key, rest.buf, rest.len);
		}
		dbuf_release(&rest);
		char *key = xstrdup(dbuf_str(&sc->key));
		add_hit(sc, ru->name, "rule", false, 1, (int)r, true, key, strlen(key), s, n, NULL, 0, NULL);
		free(key);
		return true;
	}
	return false;
}

/* Run user rules over a block; returns the offsets of lines they claimed. */
static void scan_rules(struct extractor_scan *sc, const char *b, size_t len, size_t **claimed,
		       size_t *nclaimed, size_t *alloc)
{
	const struct extractor_set *set = sc->set;
	for (size_t r = 0; r < set->nrules; r++) {
		size_t off = 0;
		while (off < len &&
		       pcre2_match(set->rules[r].raw, (PCRE2_SPTR)b, len, off, 0, sc->md, NULL) >= 0) {
			PCRE2_SIZE *ov = pcre2_get_ovector_pointer(sc->md);
			size_t m = ov[0];
			const char *ls = m ? memrchr(b, '\n', m) : NULL;
			size_t a = ls ? (size_t)(ls - b) + 1 : 0;
			const char *le = memchr(b + m, '\n', len - m);
			size_t e = le ? (size_t)(le - b) : len;
			ALLOC_GROW(*claimed, *nclaimed + 1, *alloc);
			(*claimed)[(*nclaimed)++] = a;
			off = e + 1;
		}
	}
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

void extractor_scan_block(struct extractor_scan *sc, const char *b, size_t len)
{
	const struct extractor_set *set = sc->set;
	const unsigned char *ub = (const unsigned char *)b, *uend = ub + len;
	size_t *claimed = NULL, nclaimed = 0, calloc_ = 0, ci = 0;
	if (set->nrules) {
		scan_rules(sc, b, len, &claimed, &nclaimed, &calloc_);
		if (nclaimed)
			qsort(claimed, nclaimed, sizeof(size_t), cmp_size);
	}
	size_t pos = 0;
	while (pos < len) {
		size_t a, e;
		if (sc->pend->active) {
			/* line by line while a follow-up reads the lines below a hit */
			a = pos;
		} else {
			size_t m = (size_t)(pf_find(set, ub + pos, ub + pos, uend) - ub);
			if (ci < nclaimed && claimed[ci] < m)
				m = claimed[ci];
			if (m >= len)
				break;
			const char *ls = m > pos ? memrchr(b + pos, '\n', m - pos) : NULL;
			a = ls ? (size_t)(ls - b) + 1 : pos;
		}
		const char *le = memchr(b + a, '\n', len - a);
		e = le ? (size_t)(le - b) : len;
		uint64_t mask = pf_line_mask(set, ub + a, e - a);
		while (ci < nclaimed && claimed[ci] < a)
			ci++;
		bool done = false;
		if (ci < nclaimed && claimed[ci] == a) {
			while (ci < nclaimed && claimed[ci] == a)
				ci++;
			extractor_clean_line(b + a, e - a, &sc->line);
			size_t n;
			const char *s = line_str(&sc->line, &n);
			if (sc->pend->active && follow_line(sc, s, n))
				done = true;
			else
				done = rule_line(sc, s, n) || rule_line(sc, b + a, e - a);
		}
		if (!done && (mask || sc->pend->active))
			scan_line(sc, b + a, e - a, mask);
		pos = e + 1;
	}
	free(claimed);
}

void extractor_scan_end(struct extractor_scan *sc)
{
	pend_settle(sc, NULL, 0);
}

bool extractor_hit_counts(const struct extractor_scan *sc, const struct extractor_hit *h)
{
	return h->tier == sc->best_tier;
}

const struct extractor_hit *extractor_scan_primary(const struct extractor_scan *sc)
{
	const struct extractor_hit *best = NULL;
	for (size_t i = 0; i < sc->nhits; i++) {
		const struct extractor_hit *h = &sc->hits[i];
		if (h->tier != sc->best_tier)
			continue;
		if (!best || h->rank < best->rank || (h->rank == best->rank && h->seq > best->seq))
			best = h;
	}
	return best;
}
