/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * readspeed.c - how fast does profile_read() load a file?
 *
 *   build/bench/readspeed [-a] [-j] [-n RUNS] FILE
 *
 * -a drops instruction addresses, -j drops jumps. Prints the best of RUNS
 * (default 3) as MB/s of CPU time (robust on a busy machine) plus the
 * number of records kept.
 */
#include "formats/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    struct read_options opt = {0};
    int runs = 3, i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "-a"))
            opt.drop_addr = 1;
        else if (!strcmp(argv[i], "-j"))
            opt.drop_jumps = 1;
        else if (!strcmp(argv[i], "-n") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else
            break;
    }
    if (i + 1 != argc) {
        fprintf(stderr, "usage: readspeed [-a] [-j] [-n RUNS] FILE\n");
        return 2;
    }
    struct stat st;
    if (stat(argv[i], &st)) {
        perror(argv[i]);
        return 1;
    }
    double best = 0;
    for (int r = 0; r < runs; r++) {
        struct tally_error err;
        double t0 = now();
        struct profile *p = profile_read(argv[i], &opt, &err);
        double t = now() - t0;
        if (!p) {
            char buf[2048];
            fprintf(stderr, "readspeed: %s\n", tally_error_format(&err, buf, sizeof(buf)));
            return 1;
        }
        if (!r) {
            size_t nc = 0, nk = 0, nj = 0;
            for (size_t k = 0; k < p->nparts; k++) {
                nc += part_ncosts(p->parts[k]);
                nk += part_ncalls(p->parts[k]);
                nj += part_njumps(p->parts[k]);
            }
            printf("%s: %zu parts, %zu functions, %zu costs, %zu calls, %zu jumps, %zu warnings\n",
                   argv[i], p->nparts, profile_nfunctions(p), nc, nk, nj, p->warnings.n);
        }
        if (!best || t < best) best = t;
        profile_free(p);
    }
    printf("%.1f MB in %.3f s: %.0f MB/s\n", (double)st.st_size / 1e6, best,
           (double)st.st_size / 1e6 / best);
    return 0;
}
