// SPDX-License-Identifier: GPL-2.0
/*
 * probe-target: a static program whose functions the uprobe selftests
 * probe, called with arguments the tests know.
 *
 *   probe-target [N]
 *
 * Calls each target function N times (default 3), in this order each
 * round, with these arguments (x86-64 registers in brackets):
 *   target_add(7 [di], 100000 [si], "hello" [dx])          returns 100007
 *   target_strings("first" [di], "second string" [si])    returns 19
 *   target_struct(&point [di]), point = { 3, -4, "origin" } returns -1
 *   target_round(i [di]) with the round i = 0..N-1         returns i * 2
 * The build writes each function's file offset to probe-target.offsets
 * ("name 0xOFFSET" lines), for `PATH:0xOFFSET` in uprobe_events.
 */
#include <stdio.h>
#include <stdlib.h>

#define noinline __attribute__((noinline))

struct point {
	int x;
	int y;
	char name[16];
};

/* Keeps the calls from being optimized out. */
volatile long sink;

noinline int target_add(int a, long b, const char *s)
{
	sink += s[0];
	return a + (int)b;
}

noinline long target_strings(const char *first, const char *second)
{
	long n = 0;

	while (first[n])
		n++;
	for (long i = 0; second[i]; i++)
		n++;
	return n + 1;
}

noinline int target_struct(const struct point *p)
{
	sink += p->name[0];
	return p->x + p->y;
}

noinline unsigned long target_round(unsigned long i)
{
	sink += i;
	return i * 2;
}

int main(int argc, char **argv)
{
	static const struct point point = { 3, -4, "origin" };
	long rounds = argc > 1 ? strtol(argv[1], NULL, 0) : 3;

	for (long i = 0; i < rounds; i++) {
		target_add(7, 100000, "hello");
		target_strings("first", "second string");
		target_struct(&point);
		target_round(i);
	}
	return 0;
}
