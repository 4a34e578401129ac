/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "outfile.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_TEMPS 64
static const char *volatile temps[MAX_TEMPS];

int outfile_track_temp(const char *path)
{
    for (int i = 0; i < MAX_TEMPS; i++)
        if (!temps[i]) {
            temps[i] = path;
            return i;
        }
    return -1;
}

void outfile_untrack_temp(int slot)
{
    if (slot >= 0 && slot < MAX_TEMPS) temps[slot] = NULL;
}

void outfile_remove_temps(void)
{
    for (int i = 0; i < MAX_TEMPS; i++) {
        const char *p = temps[i];
        if (p) unlink(p);
    }
}

int outfile_open(struct outfile *of, const char *path, struct tally_error *err)
{
    memset(of, 0, sizeof(*of));
    of->slot = -1;
    if (!path || strcmp(path, "-") == 0) {
        of->fp = stdout;
        return 0;
    }
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        /* a device or a FIFO (/dev/null, a pipe): written in place, never replaced */
        of->fp = fopen(path, "w");
        if (!of->fp)
            return tally_error_set(err, path, 0, "cannot open output file: %s", strerror(errno));
        of->path = xstrdup(path);
        return 0;
    }
    of->path = xstrdup(path);
    of->tmp = xasprintf("%s.tmpXXXXXX", path);
    /* a signal between mkstemp and the tracking would leave the file: block them */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigprocmask(SIG_BLOCK, &block, &old);
    int fd = mkstemp(of->tmp);
    if (fd >= 0) of->slot = outfile_track_temp(of->tmp);
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (fd < 0) {
        tally_error_set(err, path, 0, "cannot create output file: %s", strerror(errno));
        free(of->tmp);
        free(of->path);
        memset(of, 0, sizeof(*of));
        return -1;
    }
    /* mkstemp uses 0600; give the file the usual umask-based mode */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    of->fp = fdopen(fd, "w");
    if (!of->fp) {
        close(fd);
        unlink(of->tmp);
        outfile_untrack_temp(of->slot);
        tally_error_set(err, path, 0, "cannot open output file: %s", strerror(errno));
        free(of->tmp);
        free(of->path);
        memset(of, 0, sizeof(*of));
        return -1;
    }
    return 0;
}

int outfile_commit(struct outfile *of, struct tally_error *err)
{
    if (!of->path) {
        if (fflush(of->fp) != 0 || ferror(of->fp))
            return tally_error_set(err, "(stdout)", 0, "write error: %s", strerror(errno));
        return 0;
    }
    int bad = ferror(of->fp);
    int e = errno;
    if (fclose(of->fp) != 0) {
        bad = 1;
        e = errno;
    }
    of->fp = NULL;
    if (!bad && of->tmp && rename(of->tmp, of->path) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        tally_error_set(err, of->path, 0, "cannot write output file: %s", strerror(e));
        if (of->tmp) unlink(of->tmp);
    }
    outfile_untrack_temp(of->slot); /* after the rename: a late signal finds no file */
    free(of->tmp);
    free(of->path);
    memset(of, 0, sizeof(*of));
    return bad ? -1 : 0;
}

void outfile_abort(struct outfile *of)
{
    if (of->path) {
        if (of->fp) fclose(of->fp);
        if (of->tmp) unlink(of->tmp);
        outfile_untrack_temp(of->slot);
        free(of->tmp);
        free(of->path);
    } else if (of->fp) {
        fflush(of->fp);
    }
    memset(of, 0, sizeof(*of));
}
