/* SIGALRM every 2 ms from an interval timer; the handler leaves by
 * siglongjmp() now and then, from wherever the signal landed. */
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>

static sigjmp_buf env;
static volatile int ticks, jumps;
static volatile unsigned long sink;

static void on_alarm(int sig)
{
    (void)sig;
    if (++ticks % 3 == 0) {
        jumps++;
        siglongjmp(env, 1);
    }
}

__attribute__((noinline)) static void leaf(int n)
{
    for (int i = 0; i < n; i++)
        sink += (unsigned long)i;
}

__attribute__((noinline)) static void deepf(int d)
{
    if (d == 0) {
        leaf(20000);
        return;
    }
    leaf(100);
    deepf(d - 1);
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = {{0, 2000}, {0, 2000}};
    setitimer(ITIMER_REAL, &it, NULL);
    for (int round = 0; jumps < 8 && round < 100000; round++) {
        if (sigsetjmp(env, 1) == 0) deepf(20);
    }
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    return 0;
}
