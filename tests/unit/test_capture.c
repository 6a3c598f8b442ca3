/* Bounded capture: head kept, tail ring, middle dropped and counted. */
#include <stdlib.h>
#include <string.h>

#include "run/capture.h"
#include "tap.h"

static char *text(struct capture *c)
{
	struct dbuf d;
	dbuf_init(&d, 1 << 20);
	capture_text(c, &d);
	return dbuf_detach(&d, NULL);
}

int main(void)
{
	struct capture c;
	capture_init(&c, 4, 6);
	char *t = text(&c);
	CHECK_STR(t, "");
	free(t);
	CHECK(c.head == NULL && c.tail == NULL);

	capture_append(&c, "abc", 3);
	t = text(&c);
	CHECK_STR(t, "abc");
	free(t);

	capture_append(&c, "defgh", 5);      /* head "abcd", tail "efgh" */
	t = text(&c);
	CHECK_STR(t, "abcdefgh");
	free(t);
	CHECK(capture_dropped(&c) == 0);

	capture_append(&c, "ijklmn", 6);     /* tail keeps last 6: "ijklmn", drops "efgh" */
	CHECK(capture_dropped(&c) == 4);
	t = text(&c);
	CHECK_STR(t, "abcd\n[jostle: 4 bytes of output dropped here]\nijklmn");
	free(t);

	capture_append(&c, "op", 2);         /* ring wraps: "klmnop" */
	t = text(&c);
	CHECK_STR(t, "abcd\n[jostle: 6 bytes of output dropped here]\nklmnop");
	free(t);

	char big[100];
	memset(big, 'x', sizeof(big));
	big[99] = 'Z';
	capture_append(&c, big, sizeof(big)); /* a chunk larger than the ring */
	CHECK(c.total == 116);
	CHECK(capture_dropped(&c) == 116 - 4 - 6);
	t = text(&c);
	CHECK(strlen(t) > 6 && !strcmp(t + strlen(t) - 6, "xxxxxZ"));
	free(t);
	capture_release(&c);

	/* Binary output with NULs survives. */
	capture_init(&c, 8, 8);
	capture_append(&c, "a\0b", 3);
	struct dbuf d;
	dbuf_init(&d, 64);
	capture_text(&c, &d);
	CHECK(d.len == 3 && d.buf[1] == '\0' && d.buf[2] == 'b');
	dbuf_release(&d);
	capture_release(&c);
	return tap_done();
}
