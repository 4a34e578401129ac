// SPDX-License-Identifier: GPL-2.0-or-later
// tests/cli/asm.sh: a C program with loops, branches, a switch that
// compiles to a jump table (an indirect jump with several targets), calls
// through a function pointer, recursion and a cold block that goes to
// main.cold (two ranges of code in one function), for annotate --asm.
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static int collatz(unsigned long n)
{
    int steps = 0;
    while (n != 1) {
        if (n & 1)
            n = 3 * n + 1;
        else
            n /= 2;
        steps++;
    }
    return steps;
}

__attribute__((noinline)) static long classify(int x)
{
    switch (x % 9) {
    case 0:
        return x * 3;
    case 1:
        return x + 7;
    case 2:
        return x - 1;
    case 3:
        return x ^ 5;
    case 4:
        return x << 2;
    case 5:
        return x / 3;
    case 6:
        return x % 5;
    case 7:
        return -x;
    default:
        return x & 3;
    }
}

__attribute__((noinline)) static long fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

/* cold: its caller's block goes to main.cold (-freorder-blocks-and-partition) */
__attribute__((cold, noinline)) static void note(long v)
{
    printf("at 1000: %ld\n", v);
}

static long twice(long v)
{
    return 2 * v;
}

int main(int argc, char **argv)
{
    int lim = argc > 1 ? atoi(argv[1]) : 2000;
    long (*op)(long) = twice;
    long sum = 0;
    for (int i = 1; i < lim; i++) {
        sum += collatz((unsigned long)i);
        sum += classify(i);
        if (i % 100 == 0) sum += op(i);
        if (__builtin_expect(i == 1000, 0)) {
            sum += 3;
            note(sum);
        }
    }
    sum += fib(15);
    printf("%ld\n", sum);
    return 0;
}
