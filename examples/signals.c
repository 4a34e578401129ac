/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * signals.c - signal handlers with calls known by construction, for the
 * tests of `tally record` (tests/peer/record.sh).
 *
 *   main -> interrupted       3 calls; each raises SIGUSR1 between two
 *                             calls of busy (interrupted -> busy 6)
 *   <signal 10> -> on_usr1    3 deliveries; on_usr1 -> counted 12
 *   main -> deep              2 calls; deep -> deep 6; the innermost sends
 *                             SIGUSR2 with kill(getpid())
 *   <signal 12> -> on_usr2    2 deliveries; on_usr2 -> counted 2, then it
 *                             siglongjmps back into main
 *   main -> after_jump        2 (the stack is main's again after the jump)
 *   main -> busy              1 (the last call)
 *
 * Copyright (C) 2026 the tally authors.
 */
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#define NI __attribute__((noinline, noclone))

static volatile int sink;
static sigjmp_buf back;

NI static void counted(int x)
{
    sink += x;
}

NI static void on_usr1(int sig)
{
    for (int i = 0; i < 4; i++)
        counted(sig + i);
}

NI static void on_usr2(int sig)
{
    counted(sig);
    siglongjmp(back, 1);
}

NI static void busy(int n)
{
    for (int i = 0; i < n; i++)
        sink += i;
}

NI static void interrupted(int n)
{
    busy(n);
    raise(SIGUSR1);
    busy(n);
}

NI static void deep(int n)
{
    if (n == 0) {
        kill(getpid(), SIGUSR2);
        sink++; /* never reached: the handler jumps out */
        return;
    }
    deep(n - 1);
    sink++;
}

NI static void after_jump(void)
{
    sink++;
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    sa.sa_handler = on_usr2;
    sigaction(SIGUSR2, &sa, NULL);

    for (int i = 0; i < 3; i++)
        interrupted(1000);
    for (int k = 0; k < 2; k++) {
        if (!sigsetjmp(back, 1)) deep(3);
        after_jump();
    }
    busy(100);
    return 0;
}
