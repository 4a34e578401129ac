/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tests/peer/options.sh: recursion (direct: fib; mutual: ping, pong), a
 * function to skip (helper, called from three places) and PLT calls into
 * libc (snprintf, strlen, puts). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile int sink;

__attribute__((noinline)) int leaf(int x)
{
    sink += x;
    return x * 2;
}
__attribute__((noinline)) int helper(int x)
{
    int s = 0;
    for (int i = 0; i < x; i++)
        s += leaf(i);
    return s;
}
__attribute__((noinline)) int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
__attribute__((noinline)) int ping(int n);
__attribute__((noinline)) int pong(int n)
{
    return n ? ping(n - 1) + 1 : 0;
}
__attribute__((noinline)) int ping(int n)
{
    return n ? pong(n - 1) + 1 : 0;
}
__attribute__((noinline)) int viaA(void)
{
    return helper(3);
}
__attribute__((noinline)) int viaB(void)
{
    return helper(4);
}

int main(void)
{
    char buf[64];
    int r = fib(6) + ping(5) + viaA() + viaB() + helper(2);
    snprintf(buf, sizeof buf, "%d", r);
    sink += (int)strlen(buf);
    puts(buf);
    return 0;
}
