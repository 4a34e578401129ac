/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A routine fed by read(): load(fd, m) reads m blocks of 256 bytes into one
 * buffer and sums each with consume(). Its RMS hardly depends on m (the
 * buffer is the same memory every time) but its DRMS grows by 64 cells
 * (resolution 4) per block: the kernel wrote new input into the buffer.
 * consume(buf, 256) has RMS = DRMS = 64 + 2.
 * Usage: readfile FILE (at least 16 blocks of 256 bytes). */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#define BLK 256
static unsigned char buf[BLK];

__attribute__((noinline)) long consume(const unsigned char *b, int n)
{
    long s = 0;
    for (int i = 0; i < n; i += 4)
        s += *(const unsigned *)(b + i) & 0xff;
    return s;
}

__attribute__((noinline)) long load(int fd, int m)
{
    long s = 0;
    for (int k = 0; k < m; k++) {
        if (read(fd, buf, BLK) != BLK) return -1;
        s += consume(buf, BLK);
    }
    return s;
}

int main(int argc, char **argv)
{
    if (argc != 2) return 2;
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) return 1;
    long t = 0;
    for (int m = 1; m <= 16; m++) {
        if (lseek(fd, 0, SEEK_SET) != 0) return 1;
        t += load(fd, m);
    }
    printf("%ld\n", t);
    close(fd);
    return 0;
}
