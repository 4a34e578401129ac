/* N threads (argv[1], default 4), each calling work() from body(). */
#include <pthread.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void work(int n)
{
    for (int i = 0; i < n; i++)
        sink += (unsigned long)i * 7u;
}

static void *body(void *arg)
{
    work(1000 + (int)(long)arg);
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4;
    pthread_t t[64];
    if (n < 1 || n > 64) return 2;
    for (long i = 0; i < n; i++)
        pthread_create(&t[i], NULL, body, (void *)i);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    return 0;
}
