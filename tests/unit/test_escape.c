/* escape.c: hostile program output made inert for every report target. */
#include <string.h>

#include "util/dbuf.h"
#include "util/escape.h"
#include "tap.h"

static const char *html(const char *s, size_t n)
{
	static struct dbuf b;
	dbuf_release(&b);
	dbuf_init(&b, 1 << 20);
	escape_html(&b, s, n);
	return dbuf_str(&b);
}

static const char *md(const char *s, bool table)
{
	static struct dbuf b;
	dbuf_release(&b);
	dbuf_init(&b, 1 << 20);
	escape_md_code(&b, s, strlen(s), table);
	return dbuf_str(&b);
}

int main(void)
{
	CHECK_STR(html("</script><img src=x onerror=\"a('1')\">&", 38),
		  "&lt;/script&gt;&lt;img src=x onerror=&quot;a(&#39;1&#39;)&quot;&gt;&amp;");
	/* NUL, escape sequences and invalid UTF-8 become U+FFFD; valid UTF-8 stays */
	CHECK_STR(html("a\0b\x1b[31mc", 9), "a\xef\xbf\xbd" "b\xef\xbf\xbd[31mc");
	CHECK_STR(html("\xff\xfe ok \xc3\xa9 \xe2\x82", 11), "\xef\xbf\xbd\xef\xbf\xbd ok \xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd");
	/* overlong encodings and surrogates are invalid too */
	CHECK_STR(html("\xc0\xbc\xed\xa0\x80", 5), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	CHECK_STR(html("l1\r\nl2\tx", 8), "l1\nl2\tx");
	/* Markdown code spans: fence longer than any backtick run, pipes in tables */
	CHECK_STR(md("a|b", true), "`a\\|b`");
	CHECK_STR(md("a|b", false), "`a|b`");
	CHECK_STR(md("x ``y`` z", false), "```x ``y`` z```");
	CHECK_STR(md("`x`", false), "`` `x` ``");
	CHECK_STR(md("two\nlines", false), "`two lines`");
	CHECK(escape_md_fence("no ticks", 8) == 3);
	CHECK(escape_md_fence("````four", 8) == 5);
	/* a 1 MB line passes through whole (cutting is the reader's job) */
	static char big[1 << 20];
	memset(big, 'x', sizeof(big));
	struct dbuf b;
	dbuf_init(&b, 4 << 20);
	escape_html(&b, big, sizeof(big));
	CHECK(b.len == sizeof(big));
	dbuf_release(&b);
	return tap_done();
}
