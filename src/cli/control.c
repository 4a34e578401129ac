/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * control.c - `tally control [OPTIONS] [PID|PROGRAM] [COMMAND...]`: watch
 * and steer programs running under `tally record`, as callgrind_control
 * does for Callgrind.
 *
 * The processes are the ones `vgdb -l` lists whose Valgrind command line
 * has --tool=tally (Valgrind's gdbserver is on by default, --vgdb=yes).
 * Each action is a monitor command that `vgdb --pid=PID COMMAND` sends to
 * the tool (valgrind/tl_monitor.c): dump [LABEL], zero, instrumentation
 * [on|off], and the core's v.kill; its answer is printed under the
 * process's line. -s, -e and -b read the tool's `status internal` (the
 * key: value lines callgrind_control reads) and print them as
 * callgrind_control does. TALLY_VGDB (for tests) replaces the `vgdb`
 * command.
 */
#include "cli.h"

#include "../report/textfmt.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* How long one vgdb may take (it waits for the process to reach a point
 * where it can answer), in seconds. */
#define VGDB_TIMEOUT 30

static void control_usage(FILE *fp)
{
    fputs("usage: tally control [OPTIONS] [PID|PROGRAM] [COMMAND...]\n"
          "\n"
          "Observe and control programs running under 'tally record', with the options\n"
          "and the output of callgrind_control for Callgrind. With no PID or PROGRAM the\n"
          "actions apply to every such process; with no action the processes are\n"
          "listed, one 'PID N: COMMAND LINE' line each. PROGRAM matches the end of a\n"
          "process's program path. COMMAND is a monitor command sent as given.\n"
          "\n"
          "Options (the actions are sent in the order given; -s, -e and -b make one\n"
          "report, from one 'status internal', where the first of them stands):\n"
          "  -s, --stat           threads, events, functions and basic blocks\n"
          "  -e [EV,...]          each thread's event totals: every event, or those\n"
          "                       listed, in that order (an event the process does not\n"
          "                       count is an error); with -b, each frame's cost since\n"
          "                       its call began\n"
          "  -b, --back           the call stack of each thread, innermost first\n"
          "  -d, --dump[=LABEL]   write a part now ('desc: Trigger: dump LABEL')\n"
          "  -z, --zero           zero all costs\n"
          "  -i, --instr=on|off   switch the instrumentation on or off (also -i on,\n"
          "                       --instr off); --instr alone prints its state\n"
          "  -k, --kill           kill the process (Valgrind's v.kill)\n"
          "  -v                   say which monitor command is sent ([requesting 'X'])\n"
          "  --vgdb-prefix=PREFIX the --vgdb-prefix given to 'tally record', if any\n"
          "  --version            print tally's version\n"
          "  -h, --help           show this help\n"
          "\n"
          "As with callgrind_control, the next argument after -d, -e or -i is their\n"
          "value when it starts with a letter or '_': 'tally control -d myprog' writes a\n"
          "part labelled 'myprog' in every process. Give PID or PROGRAM first, or write\n"
          "--dump=LABEL, to avoid that.\n"
          "\n"
          "Monitor commands of tally's tool: dump [LABEL], zero, instrumentation\n"
          "[on|off], status [internal], stack, help (and Valgrind's own v.* commands).\n"
          "\n"
          "Examples:\n"
          "  tally control                      list the processes\n"
          "  tally control 1234 --dump=warm     part 'dump warm' of process 1234\n"
          "  tally control myprog -b -e Ir      the stacks of every 'myprog', with Ir\n"
          "  tally control 1234 instrumentation off\n"
          "\n"
          "Exit status: 0 on success; 1 when a process is not found or does not\n"
          "answer, or vgdb is missing; 2 for bad usage, and for an event (-e) that\n"
          "a process does not count.\n",
          fp);
}

struct proc {
    long pid;
    char *cmdline; /* the program and its arguments */
    char *prog;    /* the program as given */
};

struct control {
    const char *prefix; /* --vgdb-prefix=... (whole option) or NULL */
    char *vgdb;
    char **cmds; /* monitor commands, in order */
    int ncmds;
    int verbose; /* -v */
    /* -s, -e, -b: the report made from cmds[report] ("status internal"),
     * -1 when there is none; show: -e's event names (nshow 0: all) */
    int report;
    int stat, events, back;
    char **show;
    int nshow;
    struct proc *procs;
    int nprocs;
};

static void add_cmd(struct control *c, const char *cmd)
{
    c->cmds = realloc(c->cmds, (size_t)(c->ncmds + 1) * sizeof *c->cmds);
    if (!c->cmds || !(c->cmds[c->ncmds] = strdup(cmd))) {
        perror("tally: control");
        exit(1);
    }
    c->ncmds++;
}

/*
 * Run vgdb with args (NULL-terminated after argv[0]), its standard output
 * read into *out (allocated, NUL-terminated) and its standard error into
 * *err. Returns its exit status, or -1 when it could not run or took more
 * than VGDB_TIMEOUT seconds (then killed).
 */
static int run_vgdb(const char *vgdb, char *const *args, char **out, char **err)
{
    *out = *err = NULL;
    int po[2], pe[2];
    if (pipe(po) != 0) return -1;
    if (pipe(pe) != 0) {
        close(po[0]);
        close(po[1]);
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0) dup2(null, 0);
        dup2(po[1], 1);
        dup2(pe[1], 2);
        close(po[0]);
        close(pe[0]);
        execv(vgdb, args);
        _exit(127);
    }
    close(po[1]);
    close(pe[1]);
    size_t cap[2] = {4096, 1024}, len[2] = {0, 0};
    char *buf[2] = {malloc(cap[0]), malloc(cap[1])};
    struct pollfd fds[2] = {{.fd = po[0], .events = POLLIN}, {.fd = pe[0], .events = POLLIN}};
    int open_fds = 2, timed_out = 0;
    time_t end = time(NULL) + VGDB_TIMEOUT;
    while (open_fds > 0 && buf[0] && buf[1]) {
        int left = (int)(end - time(NULL));
        if (left <= 0 || poll(fds, 2, left * 1000) == 0) {
            timed_out = 1;
            break;
        }
        for (int k = 0; k < 2; k++) {
            if (fds[k].fd < 0 || !fds[k].revents) continue;
            if (len[k] + 1024 >= cap[k]) {
                cap[k] *= 2;
                char *b = realloc(buf[k], cap[k]);
                if (!b) break;
                buf[k] = b;
            }
            ssize_t n = read(fds[k].fd, buf[k] + len[k], cap[k] - len[k] - 1);
            if (n > 0) {
                len[k] += (size_t)n;
            } else if (n == 0 || errno != EINTR) {
                close(fds[k].fd);
                fds[k].fd = -1;
                open_fds--;
            }
        }
    }
    for (int k = 0; k < 2; k++)
        if (fds[k].fd >= 0) close(fds[k].fd);
    if (timed_out) kill(pid, SIGKILL);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (!buf[0] || !buf[1]) {
        free(buf[0]);
        free(buf[1]);
        return -1;
    }
    buf[0][len[0]] = buf[1][len[1]] = '\0';
    *out = buf[0];
    *err = buf[1];
    if (timed_out) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The processes under tally that `vgdb -l` lists. Returns 0, or 1 after an error. */
static int find_procs(struct control *c)
{
    char *args[4] = {c->vgdb, "-l", NULL, NULL};
    if (c->prefix) {
        args[1] = (char *)c->prefix;
        args[2] = "-l";
    }
    char *out, *err;
    /* vgdb -l exits 1 however many processes it lists */
    int st = run_vgdb(c->vgdb, args, &out, &err);
    if (st < 0 || st == 127) {
        const char *why = err ? strtok(err, "\n") : NULL;
        cli_errorf("control: '%s -l' failed%s%s", c->vgdb, why ? ": " : "", why ? why : "");
        free(out);
        free(err);
        return 1;
    }
    /* "use --pid=N for /usr/bin/valgrind.bin --tool=tally [opts] PROG [args]" */
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        long pid;
        int at;
        if (sscanf(line, "use --pid=%ld for %n", &pid, &at) != 1) continue;
        char *rest = line + at;
        char *tool = strstr(rest, " --tool=tally");
        if (!tool || (tool[13] != ' ' && tool[13] != '\0')) continue;
        /* the valgrind binary, then options, then the program */
        char *p = strchr(rest, ' ');
        while (p && p[0] == ' ' && p[1] == '-')
            p = strchr(p + 1, ' ');
        if (!p) continue;
        while (*p == ' ')
            p++;
        size_t n = strlen(p);
        while (n > 0 && p[n - 1] == ' ')
            p[--n] = '\0';
        struct proc *v = realloc(c->procs, (size_t)(c->nprocs + 1) * sizeof *v);
        if (!v) break;
        c->procs = v;
        struct proc *q = &v[c->nprocs++];
        q->pid = pid;
        q->cmdline = strdup(p);
        q->prog = strndup(p, strcspn(p, " "));
    }
    free(out);
    free(err);
    return 0;
}

/* Does the program path end with name (at a '/' or the whole path)? */
static int prog_matches(const char *prog, const char *name)
{
    size_t a = strlen(prog), b = strlen(name);
    if (b == 0 || b > a || strcmp(prog + a - b, name) != 0) return 0;
    return a == b || prog[a - b - 1] == '/' || name[0] == '/';
}

static int is_number(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return 0;
    return 1;
}

/*
 * `status internal`, the tool's answer for -s, -e and -b: "key: value"
 * lines, read as callgrind_control reads them. A thread's frames are its
 * function-T-I lines in order (the outermost first, the running function
 * last); the calls-T-I and events-T-I lines after one belong to it: the
 * calls of the arc it called through and the cost since that call began.
 * The strings point into the answer.
 */
struct costs {
    unsigned long long *v;
    int n; /* -1: no such line */
};

struct sframe {
    const char *fn;
    const char *calls; /* NULL: no calls-T-I line */
    struct costs ev;
};

struct sthread {
    unsigned long tid;
    struct costs total; /* events-T */
    struct sframe *f;
    int nf;
};

struct status {
    const char *instr, *exec_bbs, *dist_bbs, *exec_calls, *dist_calls, *dist_fns, *dist_ctxs;
    const char *events, *threads; /* as given */
    char **ev;                    /* the event names */
    int nev;
    struct sthread *t;
    int nt;
    const char *bad; /* the first line that could not be read */
};

static void *grow(void *v, int n, size_t size)
{
    void *r = realloc(v, (size_t)(n + 1) * size);
    if (!r) {
        perror("tally: control");
        exit(1);
    }
    return r;
}

static struct sthread *status_thread(struct status *s, unsigned long tid)
{
    for (int k = 0; k < s->nt; k++)
        if (s->t[k].tid == tid) return &s->t[k];
    s->t = grow(s->t, s->nt, sizeof *s->t);
    struct sthread *t = &s->t[s->nt++];
    *t = (struct sthread){.tid = tid, .total = {NULL, -1}};
    return t;
}

/* "NAME-A" (1) or "NAME-A-B" (2) into *a and *b; 0 when key is neither. */
static int numbered(const char *key, const char *name, unsigned long *a, unsigned long *b)
{
    size_t n = strlen(name);
    if (strncmp(key, name, n) != 0 || key[n] != '-' || !isdigit((unsigned char)key[n + 1]))
        return 0;
    char *end;
    *a = strtoul(key + n + 1, &end, 10);
    if (!*end) return 1;
    if (*end != '-' || !isdigit((unsigned char)end[1])) return 0;
    *b = strtoul(end + 1, &end, 10);
    return *end ? 0 : 2;
}

/* A line of counts: 0, or -1 when a word is not a count. */
static int parse_costs(const char *v, struct costs *c)
{
    c->n = 0;
    for (;;) {
        while (*v == ' ')
            v++;
        if (!*v) return 0;
        if (!isdigit((unsigned char)*v)) return -1;
        char *end;
        errno = 0;
        unsigned long long x = strtoull(v, &end, 10);
        if (errno || (*end && *end != ' ')) return -1;
        c->v = grow(c->v, c->n, sizeof *c->v);
        c->v[c->n++] = x;
        v = end;
    }
}

/* Read the answer (changed in place: lines split). */
static void status_parse(struct status *s, char *text)
{
    struct {
        const char *key;
        const char **val;
    } keys[] = {
        {"instrumentation", &s->instr},
        {"executed-bbs", &s->exec_bbs},
        {"distinct-bbs", &s->dist_bbs},
        {"executed-calls", &s->exec_calls},
        {"distinct-calls", &s->dist_calls},
        {"distinct-functions", &s->dist_fns},
        {"distinct-contexts", &s->dist_ctxs},
        {"events", &s->events},
        {"threads", &s->threads},
    };
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *colon = strchr(line, ':');
        if (!colon || (colon[1] && colon[1] != ' ')) continue;
        *colon = '\0';
        const char *key = line, *val = colon[1] ? colon + 2 : colon + 1;
        unsigned long a, b;
        int nk;
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            if (!strcmp(key, keys[k].key)) *keys[k].val = val;
        if (numbered(key, "function", &a, &b) == 2) {
            struct sthread *t = status_thread(s, a);
            t->f = grow(t->f, t->nf, sizeof *t->f);
            t->f[t->nf++] = (struct sframe){.fn = val, .ev = {NULL, -1}};
        } else if (numbered(key, "calls", &a, &b) == 2) {
            struct sthread *t = status_thread(s, a);
            if (t->nf) t->f[t->nf - 1].calls = val;
        } else if ((nk = numbered(key, "events", &a, &b)) != 0) {
            struct sthread *t = status_thread(s, a);
            struct costs *c = nk == 1 ? &t->total : t->nf ? &t->f[t->nf - 1].ev : NULL;
            if (c && parse_costs(val, c) && !s->bad) {
                *colon = ':';
                s->bad = line;
            }
        }
    }
    if (s->events) {
        char *names = strdup(s->events);
        for (char *w = names ? strtok(names, " ") : NULL; w; w = strtok(NULL, " ")) {
            s->ev = grow(s->ev, s->nev, sizeof *s->ev);
            s->ev[s->nev++] = w;
        }
        if (!s->nev) free(names);
    }
}

static void status_free(struct status *s)
{
    if (s->nev) free(s->ev[0]); /* the copy of the events line */
    free(s->ev);
    for (int k = 0; k < s->nt; k++) {
        free(s->t[k].total.v);
        for (int f = 0; f < s->t[k].nf; f++)
            free(s->t[k].f[f].ev.v);
        free(s->t[k].f);
    }
    free(s->t);
}

/* A count as given ("1234"), printed with thousands separators. */
static void put_count(const char *v)
{
    char buf[TEXTFMT_CELL_MAX];
    if (!v || !*v) v = "0";
    if (strspn(v, "0123456789") == strlen(v) && strlen(v) < 20)
        fputs(textfmt_commify((tally_wide)strtoull(v, NULL, 10), buf), stdout);
    else
        fputs(v, stdout);
}

/* Widen w (one per event) to the counts of c: callgrind_control's rule,
 * the event name's length or that of the widest count with its commas. */
static void widen(size_t *w, const struct costs *c, int nev)
{
    for (int e = 0; e < nev && e < c->n; e++) {
        size_t n = textfmt_count_width((tally_wide)c->v[e], 0);
        if (n > w[e]) w[e] = n;
    }
}

/* The cells of the shown events, each right-aligned and followed by a
 * space; "." for a count the line does not have. */
static void put_cells(const struct costs *c, const int *show, int nshow, const size_t *w)
{
    char buf[TEXTFMT_CELL_MAX + 64];
    for (int k = 0; k < nshow; k++) {
        int e = show[k];
        int have = c && e < c->n;
        textfmt_cell(buf, sizeof buf, have ? (tally_wide)c->v[e] : 0, have, 0, 0, w[e]);
        fputs(buf, stdout);
    }
}

static void put_names(const struct status *s, const int *show, int nshow, const size_t *w)
{
    for (int k = 0; k < nshow; k++)
        printf("%*s ", (int)w[show[k]], s->ev[show[k]]);
}

/* The backtrace of one thread as callgrind_control -b prints it: the
 * running function first, each with the calls of the arc that entered it
 * and (-e) the cost since that call began; the outermost has neither. */
static void put_backtrace(const struct sthread *t, const int *show, int nshow, const size_t *w,
                          const struct status *s)
{
    printf("\n  Frame: ");
    if (show) put_names(s, show, nshow, w);
    printf("Backtrace for Thread %lu\n", t->tid);
    int shown = 0;
    for (int i = t->nf; i > 0; i--, shown++) {
        if (shown == 100) {
            printf("   ...   (%d frames more)\n", i);
            break;
        }
        const struct sframe *below = i > 1 ? &t->f[i - 2] : NULL;
        printf("   [%2d]  ", shown);
        if (show) put_cells(below ? &below->ev : NULL, show, nshow, w);
        fputs(t->f[i - 1].fn, stdout);
        if (below && below->calls) printf(" (%s x)", below->calls);
        putchar('\n');
    }
    putchar('\n');
}

/* -s, -e and -b from the answer of process p. Returns 0, 1 (an answer
 * that is not a status) or 2 (an event -e names that p does not count). */
static int print_report(const struct control *c, const struct proc *p, char *answer)
{
    struct status s = {0};
    status_parse(&s, answer);
    int rc = 0;
    int *show = NULL;
    size_t *w = NULL;
    if (!s.instr || s.bad) {
        cli_errorf("control: process %ld: cannot read its status%s%s%s", p->pid,
                   s.bad ? " line '" : "", s.bad ? s.bad : "", s.bad ? "'" : "");
        rc = 1;
        goto out;
    }
    if (strcmp(s.instr, "on") != 0) {
        printf("  No information available as instrumentation is switched off.\n\n");
        goto out;
    }
    int nshow = c->nshow ? c->nshow : s.nev;
    show = calloc((size_t)nshow + 1, sizeof *show);
    w = calloc((size_t)s.nev + 1, sizeof *w);
    if (!show || !w) {
        perror("tally: control");
        exit(1);
    }
    for (int k = 0; k < nshow; k++) {
        int e = c->nshow ? -1 : k;
        for (int x = 0; c->nshow && x < s.nev; x++)
            if (!strcmp(s.ev[x], c->show[k])) e = x;
        if (e < 0) {
            cli_errorf("control: process %ld does not count event '%s' (its events: %s)", p->pid,
                       c->show[k], s.events ? s.events : "none");
            rc = 2;
            goto out;
        }
        show[k] = e;
    }
    if (c->stat) {
        if (!c->events) {
            int n = 0;
            for (const char *q = s.threads ? s.threads : ""; *q;) {
                q += strspn(q, " ");
                if (*q) n++;
                q += strcspn(q, " ");
            }
            printf("  Number of running threads: %d, thread IDs: %s\n", n,
                   s.threads ? s.threads : "");
            printf("  Events collected: %s\n", s.events ? s.events : "");
        }
        printf("  Functions: ");
        put_count(s.dist_fns);
        printf(" (executed ");
        put_count(s.exec_calls);
        printf(", contexts ");
        put_count(s.dist_ctxs);
        printf(")\n  Basic blocks: ");
        put_count(s.dist_bbs);
        printf(" (");
        if (s.exec_bbs) { /* tally counts them with --dump-every-bb only */
            printf("executed ");
            put_count(s.exec_bbs);
            printf(", ");
        }
        printf("call sites ");
        put_count(s.dist_calls);
        printf(")\n");
    }
    if ((c->events || c->back) && s.nt == 0 && s.threads &&
        strspn(s.threads, " ") < strlen(s.threads)) {
        /* the tool keeps them with the call graph only */
        printf("  No costs or stacks of threads: the run has --calls=no.\n\n");
        goto out;
    }
    if (c->events) {
        for (int e = 0; e < s.nev; e++)
            w[e] = strlen(s.ev[e]);
        for (int k = 0; k < s.nt; k++)
            widen(w, &s.t[k].total, s.nev);
        printf("\n  Totals:");
        put_names(&s, show, nshow, w);
        putchar('\n');
        for (int k = 0; k < s.nt; k++) {
            if (s.t[k].total.n < 0) continue;
            printf("   Th%2lu  ", s.t[k].tid);
            put_cells(&s.t[k].total, show, nshow, w);
            putchar('\n');
        }
    }
    if (c->back) {
        for (int e = 0; e < s.nev; e++)
            w[e] = strlen(s.ev[e]);
        for (int k = 0; k < s.nt; k++)
            for (int f = 0; f < s.t[k].nf; f++)
                widen(w, &s.t[k].f[f].ev, s.nev);
        for (int k = 0; k < s.nt; k++)
            put_backtrace(&s.t[k], c->events ? show : NULL, nshow, w, &s);
    }
    putchar('\n');
out:
    free(show);
    free(w);
    status_free(&s);
    return rc;
}

/* Send every command to process p, printing the answers. Returns 0, or
 * the exit status of the worst failure (1 or 2). */
static int control_proc(struct control *c, const struct proc *p)
{
    /* -v: callgrind_control's " [requesting 'CMD']" after the process's
     * line, and before the answer of each further command */
    printf("PID %ld: %s", p->pid, p->cmdline);
    if (c->verbose && c->ncmds > 0) printf(" [requesting '%s']", c->cmds[0]);
    putchar('\n');
    int status = 0;
    for (int k = 0; k < c->ncmds; k++) {
        if (c->verbose && k > 0) printf("  [requesting '%s']\n", c->cmds[k]);
        char pidopt[40];
        snprintf(pidopt, sizeof pidopt, "--pid=%ld", p->pid);
        char *args[5] = {c->vgdb, pidopt, c->cmds[k], NULL, NULL};
        if (c->prefix) {
            args[1] = (char *)c->prefix;
            args[2] = pidopt;
            args[3] = c->cmds[k];
        }
        char *out, *err;
        int st = run_vgdb(c->vgdb, args, &out, &err);
        if (st != 0) {
            char *why = NULL;
            /* vgdb's own message, not its "sending command" line */
            for (char *l = err ? strtok(err, "\n") : NULL; l; l = strtok(NULL, "\n"))
                if (strncmp(l, "sending command", 15) != 0) why = l;
            cli_errorf("control: process %ld did not answer '%s'%s%s", p->pid, c->cmds[k],
                       why ? ": " : (st < 0 ? ": no answer in time" : ""), why ? why : "");
            if (!status) status = 1;
        } else if (k == c->report) {
            int rc = print_report(c, p, out);
            if (rc > status) status = rc;
        } else if (!*out) {
            printf("  OK.\n");
        } else {
            for (char *l = out, *e; *l; l = e) {
                e = strchr(l, '\n');
                e = e ? e + 1 : l + strlen(l);
                printf("%s%.*s", *l == '\n' ? "" : "  ", (int)(e - l), l);
                if (e[-1] != '\n') putchar('\n');
            }
        }
        if (st == 0 && !strncmp(out, "command '", 9) && strstr(out, "' not recognised")) {
            cli_errorf("control: '%s' is not a monitor command (see 'tally control --help')",
                       c->cmds[k]);
            if (!status) status = 1;
        }
        free(out);
        free(err);
        fflush(stdout);
    }
    return status;
}

/* -i/--instr: its monitor command ("instrumentation", "... on", "... off"). */
static int instr_cmd(struct control *c, const char *opt, const char *v)
{
    if (!v) {
        add_cmd(c, "instrumentation");
    } else if (!strcmp(v, "on") || !strcmp(v, "off")) {
        char cmd[24];
        snprintf(cmd, sizeof cmd, "instrumentation %s", v);
        add_cmd(c, cmd);
    } else {
        char msg[64];
        snprintf(msg, sizeof msg, "%s takes 'on' or 'off', not '%%s'", opt);
        return cli_bad_usage("control", msg, v);
    }
    return 0;
}

/* -d/--dump: "dump" or "dump LABEL". */
static void dump_cmd(struct control *c, const char *label)
{
    char *cmd = malloc(strlen(label) + 6);
    if (!cmd) {
        perror("tally: control");
        exit(1);
    }
    sprintf(cmd, *label ? "dump %s" : "dump", label);
    add_cmd(c, cmd);
    free(cmd);
}

/* -s, -e, -b: the report's flag, and its command where the first stands. */
static void report_flag(struct control *c, int *flag)
{
    *flag = 1;
    if (c->report < 0) {
        c->report = c->ncmds;
        add_cmd(c, "status internal");
    }
}

/* -e's list "A,B,...": 0, or 2 after an empty name. */
static int events_list(struct control *c, const char *list)
{
    for (int k = 0; k < c->nshow; k++)
        free(c->show[k]);
    c->nshow = 0;
    for (const char *p = list;; p++) {
        size_t n = strcspn(p, ",");
        if (n == 0) return cli_bad_usage("control", "-e: an empty event name in '%s'", list);
        c->show = grow(c->show, c->nshow, sizeof *c->show);
        if (!(c->show[c->nshow++] = strndup(p, n))) {
            perror("tally: control");
            exit(1);
        }
        p += n;
        if (!*p) return 0;
    }
}

/* callgrind_control's rule for the value of -d, -e and -i: the next
 * argument, when it starts with a letter or '_' (a PID does not). */
static const char *next_value(int argc, char **argv, int i)
{
    if (i + 1 >= argc) return NULL;
    const char *v = argv[i + 1];
    return isalpha((unsigned char)v[0]) || v[0] == '_' ? v : NULL;
}

static int on_off(const char *v)
{
    return v && (!strcmp(v, "on") || !strcmp(v, "off"));
}

/* Returns 0 to go on, or the exit status (-1 for 0). */
static int parse_args(int argc, char **argv, struct control *c, const char **target)
{
    int rest = 0; /* no more options */
    size_t raw_len = 0;
    char *raw = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!rest && a[0] == '-' && a[1]) {
            int rc = 0;
            const char *next = next_value(argc, argv, i);
            if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
                control_usage(stdout);
                free(raw);
                return -1;
            } else if (!strncmp(a, "--vgdb-prefix=", 14)) {
                c->prefix = a;
            } else if (!strcmp(a, "-v")) {
                c->verbose = 1;
            } else if (!strcmp(a, "-d") || !strcmp(a, "--dump")) {
                dump_cmd(c, next ? next : "");
                if (next) i++;
            } else if (!strncmp(a, "--dump=", 7) || !strncmp(a, "-d=", 3)) {
                dump_cmd(c, strchr(a, '=') + 1);
            } else if (!strcmp(a, "-z") || !strcmp(a, "--zero")) {
                add_cmd(c, "zero");
            } else if (!strcmp(a, "-s") || !strcmp(a, "--stat")) {
                report_flag(c, &c->stat);
            } else if (!strcmp(a, "-b") || !strcmp(a, "--back")) {
                report_flag(c, &c->back);
            } else if (!strcmp(a, "-e")) {
                report_flag(c, &c->events);
                if (next) {
                    rc = events_list(c, next);
                    i++;
                }
            } else if (!strcmp(a, "-k") || !strcmp(a, "--kill")) {
                add_cmd(c, "v.kill");
            } else if (!strcmp(a, "-i")) {
                if (on_off(next))
                    rc = instr_cmd(c, "-i", argv[++i]);
                else
                    rc = cli_bad_usage("control", "-i needs 'on' or 'off'%s", "");
            } else if (!strcmp(a, "--instr")) {
                /* --instr on|off as callgrind_control reads it; alone, the state */
                rc = instr_cmd(c, "--instr", on_off(next) ? argv[++i] : NULL);
            } else if (!strncmp(a, "--instr=", 8) || !strncmp(a, "-i=", 3)) {
                rc = instr_cmd(c, a[1] == 'i' ? "-i" : "--instr", strchr(a, '=') + 1);
            } else if (!strcmp(a, "--")) {
                rest = 1;
            } else {
                cli_unknown_option("control", a, control_usage);
                rc = 2;
            }
            if (rc) {
                free(raw);
                return rc;
            }
            continue;
        }
        if (!*target) {
            *target = a;
            continue;
        }
        rest = 1; /* the words of one monitor command */
        size_t n = strlen(a);
        char *r = realloc(raw, raw_len + n + 2);
        if (!r) return 1;
        raw = r;
        if (raw_len) raw[raw_len++] = ' ';
        memcpy(raw + raw_len, a, n + 1);
        raw_len += n;
    }
    if (raw) {
        add_cmd(c, raw);
        free(raw);
    }
    return 0;
}

static void control_free(struct control *c)
{
    for (int k = 0; k < c->nshow; k++)
        free(c->show[k]);
    free(c->show);
    for (int k = 0; k < c->ncmds; k++)
        free(c->cmds[k]);
    free(c->cmds);
    for (int k = 0; k < c->nprocs; k++) {
        free(c->procs[k].cmdline);
        free(c->procs[k].prog);
    }
    free(c->procs);
    free(c->vgdb);
}

/* Why a PID is not in the list: gone, or not under tally. */
static void no_such_pid(const char *target)
{
    char path[64];
    struct stat sb;
    snprintf(path, sizeof path, "/proc/%s", target);
    if (stat(path, &sb) != 0)
        cli_errorf("control: no process %s", target);
    else
        cli_errorf("control: process %s is not running under tally (tally record), or Valgrind's "
                   "gdbserver is off (--vgdb=no)",
                   target);
}

int cmd_control(int argc, char **argv)
{
    struct control c = {.report = -1};
    const char *target = NULL;
    int st = parse_args(argc, argv, &c, &target);
    if (st) {
        control_free(&c);
        return st < 0 ? 0 : st;
    }
    const char *env = getenv("TALLY_VGDB");
    c.vgdb = cli_find_program(env && *env ? env : "vgdb");
    if (!c.vgdb || access(c.vgdb, X_OK) != 0) {
        cli_errorf("control: vgdb not found (it comes with Valgrind; TALLY_VGDB names another)");
        control_free(&c);
        return 1;
    }
    if (find_procs(&c)) {
        control_free(&c);
        return 1;
    }
    int status = 0, matched = 0;
    for (int k = 0; k < c.nprocs; k++) {
        const struct proc *p = &c.procs[k];
        if (target && (is_number(target) ? strtol(target, NULL, 10) != p->pid
                                         : !prog_matches(p->prog, target)))
            continue;
        matched++;
        int rc = control_proc(&c, p);
        if (rc > status) status = rc;
    }
    if (!matched && target) {
        if (is_number(target))
            no_such_pid(target);
        else
            cli_errorf("control: no process of program '%s' is running under tally", target);
        status = 1;
    } else if (!matched && !cli_quiet) {
        printf("No process is running under tally.\n");
    }
    control_free(&c);
    return status;
}
