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
 *   target_cold("cold string" [di])                       returns 11
 * "cold string" lies 128 KiB inside 256 KiB of read-only data nothing else
 * touches: until its first read it is not mapped, so a probe that reads it
 * at the first call must fault it in (as the kernel's uprobe fetches do).
 * `sink` (a long) holds the sum of target_round's arguments so far.
 *
 * The build writes each function's file offset to probe-target.offsets
 * ("name 0xOFFSET" lines), for `PATH:0xOFFSET` in uprobe_events, and the
 * offset of `sink` for `@+OFFSET`.
 */
#include <stdio.h>
#include <stdlib.h>

/* No inlining, cloning or dropping of calls whose result is unused. */
#define noinline __attribute__((noipa))

struct point {
	int x;
	int y;
	char name[16];
};

/* Keeps the calls from being optimized out. */
volatile long sink;

static const struct {
	char before[128 * 1024];
	char text[16];
	char after[128 * 1024];
} cold __attribute__((aligned(4096))) = { .text = "cold string" };

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

noinline long target_cold(const char *s)
{
	long n = 0;

	while (s[n])
		n++;
	return n;
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
		target_cold(cold.text);
	}
	return 0;
}
