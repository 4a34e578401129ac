/* Hello world: a PIE whose code without a symbol (.init, .fini, the PLT
 * stubs of puts and __cxa_finalize) runs at start and exit. */
#include <stdio.h>

int main(void)
{
    puts("hello");
    return 0;
}
