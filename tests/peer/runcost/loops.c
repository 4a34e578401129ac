// SPDX-License-Identifier: GPL-2.0-or-later
// Loops for tests/peer/runcost.sh: each function runs far more than
// Valgrind's scheduling quantum (100,000 blocks) without a call, so the
// running cost the instrumented code keeps between two syncs is filled to
// its limits. light() has few loads and stores per block, heavy() more
// than IDD_MAX_D (10) of each in one block, mixed() calls both in turn.
#include <stdio.h>

#define N 4096
static volatile long a[N], b[N];

__attribute__((noinline)) static long light(int rounds)
{
    long s = 0;
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < N; i++) {
            s += a[i];
            b[i] = s;
        }
    return s;
}

__attribute__((noinline)) static long heavy(int rounds)
{
    long s = 0;
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i + 16 <= N; i += 16) {
            s += a[i] + a[i + 1] + a[i + 2] + a[i + 3] + a[i + 4] + a[i + 5] + a[i + 6] + a[i + 7] +
                 a[i + 8] + a[i + 9] + a[i + 10] + a[i + 11] + a[i + 12] + a[i + 13] + a[i + 14] +
                 a[i + 15];
            b[i] = s, b[i + 1] = s, b[i + 2] = s, b[i + 3] = s, b[i + 4] = s, b[i + 5] = s;
            b[i + 6] = s, b[i + 7] = s, b[i + 8] = s, b[i + 9] = s, b[i + 10] = s;
            b[i + 11] = s, b[i + 12] = s, b[i + 13] = s, b[i + 14] = s, b[i + 15] = s;
        }
    return s;
}

__attribute__((noinline)) static long mixed(int rounds)
{
    long s = 0;
    for (int r = 0; r < rounds; r++)
        s += light(1) + heavy(1);
    return s;
}

int main(void)
{
    for (int i = 0; i < N; i++)
        a[i] = i;
    long s = light(700) + heavy(600) + mixed(100);
    printf("%ld\n", s & 1);
    return 0;
}
