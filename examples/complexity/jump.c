/* SPDX-License-Identifier: GPL-2.0-or-later */
/* longjmp out of two activations: f(n) sets a jump buffer and calls g,
 * which calls h; h reads data[0..n-1] and longjmps back into f. g and h
 * never return (their return addresses are never read), the jump closes
 * them: RMS(g) = RMS(h), and both grow by one cell per element. */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf jb;
static int data[100];
volatile long sink;

__attribute__((noinline)) void h(int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += data[i];
    sink = s;
    longjmp(jb, 1);
}

__attribute__((noinline)) void g(int n)
{
    h(n);
    sink++;
}

__attribute__((noinline)) void f(int n)
{
    if (setjmp(jb) == 0) g(n);
}

int main(void)
{
    for (int i = 0; i < 100; i++)
        data[i] = i;
    for (int n = 10; n <= 100; n += 10)
        f(n);
    printf("%ld\n", sink);
    return 0;
}
