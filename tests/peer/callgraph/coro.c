/* A coroutine run with makecontext/swapcontext, resumed 5000 times. */
#include <ucontext.h>

static ucontext_t main_ctx, co_ctx;
static char stack[65536];
static volatile unsigned long sink;

__attribute__((noinline)) static void step(int i)
{
    sink += (unsigned long)i * 5u;
}

static void coroutine(void)
{
    for (int i = 0;; i++) {
        step(i);
        swapcontext(&co_ctx, &main_ctx);
    }
}

int main(void)
{
    getcontext(&co_ctx);
    co_ctx.uc_stack.ss_sp = stack;
    co_ctx.uc_stack.ss_size = sizeof stack;
    co_ctx.uc_link = &main_ctx;
    makecontext(&co_ctx, coroutine, 0);
    for (int i = 0; i < 5000; i++)
        swapcontext(&main_ctx, &co_ctx);
    return 0;
}
