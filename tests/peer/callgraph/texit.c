/* A thread leaves by pthread_exit() from a nested frame. */
#include <pthread.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void work(int n)
{
    for (int i = 0; i < n; i++)
        sink += (unsigned long)i * 3u;
}

__attribute__((noinline)) static void leave(void)
{
    work(2000);
    pthread_exit(NULL);
}

__attribute__((noinline)) static void nested(int d)
{
    work(500);
    if (d == 0) leave();
    nested(d - 1);
}

static void *body(void *arg)
{
    work(3000);
    nested(3);
    return arg;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, body, NULL);
    pthread_join(t, NULL);
    work(100);
    return 0;
}
