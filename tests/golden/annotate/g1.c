/* g1.c - source for the annotate golden tests */
#include <stdio.h>

static int sq(int x)
{
    return x * x;
}

static int sum(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += sq(i);
    return s;
}

/*
 * Filler lines, so that the annotated
 * ranges are separated by a gap.
 */

int helper(int);

int main(void)
{
    int s = sum(10);
    s += helper(s) + helper(1);
    printf("%d\n", s);
    return 0;
}
