/* utf8.c: what is a valid sequence, in the lax (JSON) and strict (report) modes. */
#include <string.h>

#include "util/utf8.h"
#include "tap.h"

static size_t lax(const char *s, size_t n)
{
	return utf8_seq((const unsigned char *)s, n, 0);
}

static size_t strict(const char *s, size_t n)
{
	return utf8_seq((const unsigned char *)s, n, UTF8_STRICT);
}

int main(void)
{
	/* ASCII, controls included, is one byte in both modes */
	CHECK(lax("a", 1) == 1 && strict("a", 1) == 1);
	CHECK(lax("\x1b", 1) == 1 && strict("\x7f", 1) == 1);
	/* the shortest and longest of each length */
	CHECK(lax("\xc2\xa0", 2) == 2 && strict("\xc2\xa0", 2) == 2);        /* U+00A0 */
	CHECK(lax("\xdf\xbf", 2) == 2);                                       /* U+07FF */
	CHECK(lax("\xe0\xa0\x80", 3) == 3);                                   /* U+0800 */
	CHECK(lax("\xe2\x82\xac", 3) == 3 && strict("\xe2\x82\xac", 3) == 3); /* U+20AC */
	CHECK(lax("\xf0\x90\x80\x80", 4) == 4);                               /* U+10000 */
	CHECK(lax("\xf4\x8f\xbf\xbf", 4) == 4 && strict("\xf4\x8f\xbf\xbf", 4) == 4); /* U+10FFFF */
	/* past U+10FFFF */
	CHECK(lax("\xf4\x90\x80\x80", 4) == 0);                               /* U+110000 */
	CHECK(lax("\xf5\x80\x80\x80", 4) == 0);
	CHECK(lax("\xff", 1) == 0 && lax("\xfe", 1) == 0);
	/* overlongs: every length */
	CHECK(lax("\xc0\xaf", 2) == 0 && lax("\xc1\xbf", 2) == 0);
	CHECK(lax("\xe0\x80\xaf", 3) == 0 && lax("\xe0\x9f\xbf", 3) == 0);
	CHECK(lax("\xf0\x80\x80\xaf", 4) == 0 && lax("\xf0\x8f\xbf\xbf", 4) == 0);
	/* surrogates, high and low */
	CHECK(lax("\xed\xa0\x80", 3) == 0 && strict("\xed\xa0\x80", 3) == 0);
	CHECK(lax("\xed\xbf\xbf", 3) == 0);
	CHECK(lax("\xed\x9f\xbf", 3) == 3);                                   /* U+D7FF */
	/* a stray continuation byte, a missing one, and a sequence cut by n */
	CHECK(lax("\x80", 1) == 0 && lax("\xbf", 1) == 0);
	CHECK(lax("\xe2\x82x", 3) == 0);
	CHECK(lax("\xe2\x82\xac", 2) == 0);
	CHECK(lax("\xf0\x90\x80\x80", 3) == 0);
	CHECK(lax("\xc3", 1) == 0);
	/* C1 controls: valid UTF-8, refused only in strict mode */
	CHECK(lax("\xc2\x80", 2) == 2 && strict("\xc2\x80", 2) == 0);
	CHECK(lax("\xc2\x9b", 2) == 2 && strict("\xc2\x9b", 2) == 0);       /* CSI */
	CHECK(lax("\xc2\x9f", 2) == 2 && strict("\xc2\x9f", 2) == 0);
	/* U+FFFE and U+FFFF: the same; U+FFFD, the replacement, passes both */
	CHECK(lax("\xef\xbf\xbe", 3) == 3 && strict("\xef\xbf\xbe", 3) == 0);
	CHECK(lax("\xef\xbf\xbf", 3) == 3 && strict("\xef\xbf\xbf", 3) == 0);
	CHECK(lax("\xef\xbf\xbd", 3) == 3 && strict("\xef\xbf\xbd", 3) == 3);
	/* only the sequence at s is looked at */
	CHECK(lax("\xc3\xa9\xff", 3) == 2);
	return tap_done();
}
