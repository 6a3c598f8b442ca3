/*
 * tap.h: the smallest test harness that works: TAP lines on stdout, exit
 * status 1 if anything failed. Include once per test program.
 *
 *   int main(void) { CHECK(1 + 1 == 2); CHECK_STR(a, "x"); return tap_done(); }
 */
#ifndef JOSTLE_TAP_H
#define JOSTLE_TAP_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static inline void tap_ok(int ok, const char *what, const char *file, int line)
{
	tap_n++;
	if (!ok)
		tap_failed++;
	printf("%sok %d - %s (%s:%d)\n", ok ? "" : "not ", tap_n, what, file, line);
}

#define CHECK(expr) tap_ok(!!(expr), #expr, __FILE__, __LINE__)
#define CHECK_STR(a, b) do { \
	const char *a_ = (a), *b_ = (b); \
	int ok_ = a_ && b_ && !strcmp(a_, b_); \
	tap_ok(ok_, #a " == " #b, __FILE__, __LINE__); \
	if (!ok_) printf("#   got:      '%s'\n#   expected: '%s'\n", a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
} while (0)
#define CHECK_NEAR(a, b, tol) do { \
	double a_ = (a), b_ = (b); \
	int ok_ = fabs(a_ - b_) <= (tol); \
	tap_ok(ok_, #a " ~= " #b, __FILE__, __LINE__); \
	if (!ok_) printf("#   got: %.12g expected: %.12g\n", a_, b_); \
} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
