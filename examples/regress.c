/*
 * regress.c - one program in two versions, for `tally check` (its tests
 * and docs/tally-check.md): built plainly, parse_line() hashes each line;
 * built with -DSLOW, a long line also goes through normalise_slow(), a
 * quadratic slow path, which is the regression tally check must catch.
 *
 *   cc -g -O1 -o regress-old regress.c && cc -g -O1 -DSLOW -o regress-new regress.c
 */
#include <stdio.h>

__attribute__((noinline)) static unsigned long checksum(const char *s)
{
    unsigned long h = 5381;
    while (*s)
        h = h * 33 + (unsigned char)*s++;
    return h;
}

#ifdef SLOW
/* the slow path: every suffix of the line summed again */
__attribute__((noinline)) static unsigned long normalise_slow(const char *s)
{
    unsigned long t = 0;
    for (const char *a = s; *a; a++)
        for (const char *b = a; *b; b++)
            t += (unsigned char)*b;
    return t;
}
#endif

__attribute__((noinline)) static unsigned long parse_line(const char *line)
{
    unsigned long h = checksum(line);
#ifdef SLOW
    h ^= normalise_slow(line);
#endif
    return h;
}

int main(void)
{
    char buf[128];
    unsigned long t = 0;
    for (int i = 0; i < 2000; i++) {
        snprintf(buf, sizeof buf, "line %d of the input, long enough for the slow path", i);
        t += parse_line(buf);
    }
    printf("%lu\n", t & 0xff);
    return 0;
}
