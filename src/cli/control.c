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
 * [on|off], status, stack, and the core's v.kill; its answer is printed
 * under the process's line. TALLY_VGDB (for tests) replaces the `vgdb`
 * command.
 */
#include "cli.h"

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
          "Observe and control programs running under 'tally record' (as\n"
          "callgrind_control does for Callgrind). With no PID or PROGRAM the actions\n"
          "apply to every such process; with no action the processes are listed, one\n"
          "'PID N: COMMAND LINE' line each. PROGRAM matches the end of a process's\n"
          "program path. COMMAND is a monitor command sent as given (see below).\n"
          "\n"
          "Options (each is one monitor command, sent in the order given):\n"
          "  -d, --dump[=LABEL]   write a part now ('desc: Trigger: dump LABEL')\n"
          "  -z, --zero           zero all costs\n"
          "  -i, --instr=on|off   switch the instrumentation on or off (-i on, -i off);\n"
          "                       --instr with no value prints its state\n"
          "  -s, --stat           print the state: threads, instrumentation, parts, costs\n"
          "  -b, --back           print the call stack of each thread\n"
          "  -k, --kill           kill the process (Valgrind's v.kill)\n"
          "  --vgdb-prefix=PREFIX the --vgdb-prefix given to 'tally record', if any\n"
          "  -h, --help           show this help\n"
          "\n"
          "Monitor commands of tally's tool: dump [LABEL], zero, instrumentation\n"
          "[on|off], status [internal], stack, help (and Valgrind's own v.* commands).\n"
          "\n"
          "Examples:\n"
          "  tally control                      list the processes\n"
          "  tally control 1234 --dump=warm     part 'dump warm' of process 1234\n"
          "  tally control myprog -b            the stacks of every 'myprog'\n"
          "  tally control 1234 instrumentation off\n"
          "\n"
          "Exit status: 0 on success, 1 when a process is not found or does not\n"
          "answer, or vgdb is missing, 2 for bad usage.\n",
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

/* Send every command to process p, printing the answers. Returns 0 or 1. */
static int control_proc(struct control *c, const struct proc *p)
{
    printf("PID %ld: %s\n", p->pid, p->cmdline);
    int status = 0;
    for (int k = 0; k < c->ncmds; k++) {
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
            status = 1;
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
            status = 1;
        }
        free(out);
        free(err);
        fflush(stdout);
    }
    return status;
}

/* -i/--instr: its monitor command ("instrumentation", "... on", "... off"). */
static int instr_cmd(struct control *c, const char *v)
{
    if (!v || !*v) {
        add_cmd(c, "instrumentation");
    } else if (!strcmp(v, "on") || !strcmp(v, "off")) {
        char cmd[24];
        snprintf(cmd, sizeof cmd, "instrumentation %s", v);
        add_cmd(c, cmd);
    } else {
        return cli_bad_usage("control", "--instr takes 'on' or 'off', not '%s'", v);
    }
    return 0;
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
            if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
                control_usage(stdout);
                free(raw);
                return -1;
            } else if (!strncmp(a, "--vgdb-prefix=", 14)) {
                c->prefix = a;
            } else if (!strcmp(a, "-d") || !strcmp(a, "--dump")) {
                add_cmd(c, "dump");
            } else if (!strncmp(a, "--dump=", 7) || !strncmp(a, "-d=", 3)) {
                const char *v = strchr(a, '=') + 1;
                char *cmd = malloc(strlen(v) + 6);
                if (!cmd) return 1;
                sprintf(cmd, *v ? "dump %s" : "dump", v);
                add_cmd(c, cmd);
                free(cmd);
            } else if (!strcmp(a, "-z") || !strcmp(a, "--zero")) {
                add_cmd(c, "zero");
            } else if (!strcmp(a, "-s") || !strcmp(a, "--stat")) {
                add_cmd(c, "status");
            } else if (!strcmp(a, "-b") || !strcmp(a, "--back")) {
                add_cmd(c, "stack");
            } else if (!strcmp(a, "-k") || !strcmp(a, "--kill")) {
                add_cmd(c, "v.kill");
            } else if (!strcmp(a, "-i")) {
                if (i + 1 < argc && (!strcmp(argv[i + 1], "on") || !strcmp(argv[i + 1], "off")))
                    rc = instr_cmd(c, argv[++i]);
                else
                    rc = cli_bad_usage("control", "-i needs 'on' or 'off'%s", "");
            } else if (!strcmp(a, "--instr")) {
                rc = instr_cmd(c, NULL);
            } else if (!strncmp(a, "--instr=", 8)) {
                rc = instr_cmd(c, a + 8);
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
    struct control c = {0};
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
        if (control_proc(&c, p)) status = 1;
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
