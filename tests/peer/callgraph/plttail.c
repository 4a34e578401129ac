/* wrap() tail-calls free() through the PLT at -O2 (jmp free@plt). */
#include <stdlib.h>

__attribute__((noinline)) void wrap(void *p)
{
    free(p);
}

int main(void)
{
    for (int i = 0; i < 100; i++)
        wrap(malloc(16 + (size_t)i));
    return 0;
}
