/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A handler that calls a function its signal interrupted: work(1) raises
 * SIGUSR1, and the handler runs work(0). The handler's time is not the
 * interrupted frames' (its calls hang off `<signal 10>`), so the handler's
 * work(0) is an outermost activation and its arc carries its cost; were
 * it charged nothing, work's inclusive cost would miss the handler's part
 * and the roots would not add up to the total.
 */
#include <signal.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void spin(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        sink += i;
}

__attribute__((noinline)) static void work(int raise_it)
{
    spin(1000);
    if (raise_it) raise(SIGUSR1);
    spin(1000);
}

static void on_usr1(int sig)
{
    (void)sig;
    work(0);
}

int main(void)
{
    signal(SIGUSR1, on_usr1);
    for (int k = 0; k < 10; k++)
        work(1);
    return 0;
}
