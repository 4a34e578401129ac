/* Coroutines on stacks above and below a thread's stack: the thread's
 * stack is given by pthread_attr_setstack in the middle of one mapping,
 * one coroutine's stack lies above it (higher addresses), the other's
 * below. The thread resumes each coroutine 300 times; each switches back
 * from a nested call every other time. */
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <ucontext.h>

#define CHUNK (256 * 1024)

static ucontext_t thread_ctx, above_ctx, below_ctx;
static volatile unsigned long sink;

__attribute__((noinline)) static void work_above(int i)
{
    sink += (unsigned long)i * 3u;
}

__attribute__((noinline)) static void work_below(int i)
{
    sink += (unsigned long)i * 7u;
}

__attribute__((noinline)) static void yield_above(void)
{
    swapcontext(&above_ctx, &thread_ctx);
}

__attribute__((noinline)) static void yield_below(void)
{
    swapcontext(&below_ctx, &thread_ctx);
}

static void coro_above(void)
{
    for (int i = 0;; i++) {
        work_above(i);
        if (i % 2)
            yield_above();
        else
            swapcontext(&above_ctx, &thread_ctx);
    }
}

static void coro_below(void)
{
    for (int i = 0;; i++) {
        work_below(i);
        if (i % 2)
            yield_below();
        else
            swapcontext(&below_ctx, &thread_ctx);
    }
}

static void *body(void *arg)
{
    (void)arg;
    for (int i = 0; i < 300; i++) {
        swapcontext(&thread_ctx, &above_ctx);
        swapcontext(&thread_ctx, &below_ctx);
    }
    return NULL;
}

int main(void)
{
    char *m = mmap(NULL, 3 * CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return 1;
    getcontext(&below_ctx);
    below_ctx.uc_stack.ss_sp = m;
    below_ctx.uc_stack.ss_size = CHUNK;
    makecontext(&below_ctx, coro_below, 0);
    getcontext(&above_ctx);
    above_ctx.uc_stack.ss_sp = m + 2 * CHUNK;
    above_ctx.uc_stack.ss_size = CHUNK;
    makecontext(&above_ctx, coro_above, 0);
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstack(&a, m + CHUNK, CHUNK);
    pthread_t t;
    if (pthread_create(&t, &a, body, NULL)) return 1;
    pthread_join(t, NULL);
    printf("%lu\n", sink);
    return 0;
}
