/* A signal handler on an alternate stack that lies inside main's frame,
 * above the interrupted stack pointer. */
#include <signal.h>
#include <string.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void counted(int n)
{
    for (int i = 0; i < n; i++)
        sink += (unsigned long)i;
}

static void on_usr1(int sig)
{
    (void)sig;
    counted(300);
}

__attribute__((noinline)) static void busy(int k)
{
    counted(1000);
    raise(SIGUSR1);
    counted(1000 + k);
}

int main(void)
{
    static volatile char guard;
    char altstack[65536]; /* in main's frame: above busy()'s stack pointer */
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0};
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_ONSTACK;
    sigaction(SIGUSR1, &sa, NULL);
    for (int i = 0; i < 5; i++)
        busy(i);
    guard = altstack[0];
    return 0;
}
