/*
 * fuzz_extractor.c: the extractor table over a run's output or a log
 * (extractor.c, with the crash parser behind its follow-ups), key-line
 * normalization (key.c), line cleaning, frame names, and jostle run's
 * signature of a failing run's output (signature.c).
 *
 * The input is scanned twice: whole, and cut into blocks at line ends with
 * the block sizes taken from the input's first byte, so the scanner's
 * carried state (a follow-up across blocks) is exercised; both scans must
 * find the same primary signature.
 */
#include "fuzz.h"

#include "signature/extractor.h"
#include "signature/frame.h"
#include "signature/key.h"
#include "signature/signature.h"

static struct extractor_set *set;

static const struct extractor_hit *scan(struct extractor_scan *sc, const char *text, size_t len,
					size_t every)
{
	extractor_scan_reset(sc);
	size_t off = 0;
	while (off < len) {
		size_t end = off + every < len ? off + every : len;
		const char *nl = memchr(text + end - 1, '\n', len - end + 1);
		end = nl ? (size_t)(nl - text) + 1 : len;
		extractor_scan_block(sc, text + off, end - off);
		off = end;
	}
	extractor_scan_end(sc);
	return extractor_scan_primary(sc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!set)
		set = extractor_set_new();
	const char *text = (const char *)data;

	struct extractor_scan a, b;
	extractor_scan_init(&a, set);
	extractor_scan_init(&b, set);
	const struct extractor_hit *ha = scan(&a, text, size, size ? size : 1);
	const struct extractor_hit *hb = scan(&b, text, size, size ? 1 + data[0] % 97 : 1);
	if ((ha == NULL) != (hb == NULL) || (ha && strcmp(ha->id, hb->id)))
		abort();   /* blocks changed the result */
	extractor_scan_release(&a);
	extractor_scan_release(&b);

	struct dbuf out;
	dbuf_init(&out, 1 << 20);
	const char *p = text, *end = text + size;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		dbuf_reset(&out);
		key_normalize(p, n, &out);
		dbuf_reset(&out);
		extractor_clean_line(p, n, &out);
		char *line = fuzz_cstr((const uint8_t *)p, n);
		char buf[128];
		frame_normalize(line, buf, sizeof(buf));
		frame_is_runtime(buf, line);
		frame_basename(line);
		free(line);
		p += n + 1;
	}
	dbuf_release(&out);

	struct signature sig = { 0 };
	signature_from_output(&sig, "fail", text, size, NULL);
	signature_release(&sig);
	return 0;
}
