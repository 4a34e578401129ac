/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Two 64 KiB areas exactly 4 GiB apart, written and read in turn: the
 * same lines for a cache whose tags keep only the address bits below 32
 * (Callgrind's write-back and cache-use models), different lines for one
 * whose tags are whole line numbers. Exits 77 when the fixed addresses
 * cannot be had. */
#include <stdint.h>
#include <sys/mman.h>

#define SIZE (1 << 16)

static char *map_at(uintptr_t at)
{
    void *p = mmap((void *)at, SIZE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    return p == MAP_FAILED || (uintptr_t)p != at ? 0 : p;
}

__attribute__((noinline)) static long alias_walk(char *lo, const char *hi)
{
    long s = 0;
    for (int round = 0; round < 50; round++)
        for (int i = 0; i < SIZE; i += 64) {
            lo[i] = (char)(lo[i] + 1);
            s += hi[i];
        }
    return s;
}

int main(void)
{
    char *lo = map_at(0x30000000u), *hi = map_at(0x130000000u);
    if (!lo || !hi) return 77;
    return (int)(alias_walk(lo, hi) & 1);
}
