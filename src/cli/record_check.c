/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record_check.c - the options of `tally record` that go beyond one
 * recording: --save-baseline=NAME (keep the profile as a named baseline),
 * --baseline=NAME (record, then `tally check` against it, with any of
 * check's options) and --clean-env (run the program in a fixed, minimal
 * environment). See docs/tally-check.md.
 *
 * The recording itself is done by this same binary: a child runs `tally
 * record` with the other options (and --out-file=tally.out.PID unless one
 * was given), in the clean environment when asked; this process waits for
 * it, then saves and checks the profile it wrote.
 */
#include "check.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../io/outfile.h"

void record_check_usage(FILE *fp)
{
    fprintf(fp, "Baselines and checks (docs/tally-check.md):\n"
                "  --save-baseline=NAME          also keep the profile as baseline NAME\n"
                "                                (DIR/NAME.out, replaced atomically)\n"
                "  --baseline=NAME               then check the profile against baseline NAME\n"
                "                                as 'tally check' does (exit 3 beyond a limit);\n"
                "                                tally check's options are taken too\n"
                "  -o FILE, --output=FILE        with --baseline: the check's report to FILE\n"
                "  --baseline-dir=DIR            the baselines' folder [$TALLY_BASELINE_DIR,\n"
                "                                else .tally/baselines]\n"
                "  --clean-env                   run PROG with only PATH=/usr/bin:/bin, HOME=/\n"
                "                                and LC_ALL=C in its environment (start-up\n"
                "                                counts depend on the environment's size)\n");
}

/* The environment of --clean-env. */
static char *clean_env[] = {"PATH=/usr/bin:/bin", "HOME=/", "LC_ALL=C", NULL, NULL, NULL};

/* Does this option belong to us (not to the recording)? */
static int ours(const char *a)
{
    static const char *const names[] = {
        "--save-baseline=", "--baseline=", "--baseline-dir=", "--limit=",      "--event=",
        "--show=",          "--format=",   "--top=",          "--flame-diff=", "--ignore-object="};
    if (!strcmp(a, "--clean-env") || (a[0] == '-' && a[1] == 'o') || !strncmp(a, "--output=", 9))
        return 1;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strncmp(a, names[i], strlen(names[i]))) return 1;
    return 0;
}

int record_check_wanted(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--") || argv[i][0] != '-') break;
        if (ours(argv[i])) return 1;
    }
    return 0;
}

/* The --out-file pattern with %p replaced by pid; NULL when it has %q. */
static char *expand_out(const char *pat, long pid)
{
    if (strstr(pat, "%q")) return NULL;
    char *out = xcalloc(strlen(pat) * 3 + 32, 1);
    size_t n = 0;
    for (const char *p = pat; *p; p++) {
        if (p[0] == '%' && p[1] == 'p') {
            n += (size_t)sprintf(out + n, "%ld", pid);
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            out[n++] = '%';
            p++;
        } else {
            out[n++] = *p;
        }
    }
    return out;
}

/* mkdir -p DIR. Returns 0, or -1 with err. */
static int make_dirs(const char *dir, struct tally_error *err)
{
    char *d = xstrdup(dir);
    for (char *p = d + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(d, 0777) != 0 && errno != EEXIST) break;
        *p = '/';
    }
    int rc = 0;
    if (mkdir(d, 0777) != 0 && errno != EEXIST)
        rc = tally_error_set(err, dir, 0, "cannot make the baseline folder: %s", strerror(errno));
    free(d);
    return rc;
}

/* Copy file `from` to `to` (atomically). Returns 0, or -1 with err. */
static int copy_file(const char *from, const char *to, struct tally_error *err)
{
    FILE *in = fopen(from, "rb");
    if (!in) return tally_error_set(err, from, 0, "cannot read: %s", strerror(errno));
    struct outfile of;
    if (outfile_open(&of, to, err)) {
        fclose(in);
        return -1;
    }
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, of.fp);
    int bad = ferror(in);
    fclose(in);
    if (bad) {
        outfile_abort(&of);
        return tally_error_set(err, from, 0, "read error");
    }
    return outfile_commit(&of, err);
}

int record_check(int argc, char **argv)
{
    struct check_cli o;
    check_cli_init(&o);
    const char *save = NULL, *out_pat = NULL;
    int clean = 0, rc = 2, nkeep = 0;
    char **keep = xcalloc((size_t)argc + 4, sizeof(*keep));
    char *prog = NULL, *outfile = NULL, *basepath = NULL, *savepath = NULL;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (a[0] != '-') break;
        int missing = 0;
        const char *v;
        if (!strncmp(a, "--save-baseline=", 16)) {
            save = a + 16;
        } else if (!strcmp(a, "--clean-env")) {
            clean = 1;
        } else if ((v = cli_output_arg(argc, argv, &i, &missing)) || missing) {
            if (missing) {
                cli_errorf("record: option '%s' needs a value", a);
                goto out;
            }
            o.output = v; /* tally check's report */
        } else if (ours(a)) {
            enum cli_opt r = check_cli_option(&o, argc, argv, &i, &missing);
            if (r != CLI_OPT_TAKEN) goto out; /* reported */
        } else {
            if (!strncmp(a, "--out-file=", 11)) out_pat = a + 11;
            if (!strcmp(a, "--separate-threads=yes")) {
                cli_errorf("record: --separate-threads=yes writes one profile per thread: it "
                           "cannot be kept as one baseline or checked");
                goto out;
            }
            keep[nkeep++] = argv[i];
        }
    }
    if (i >= argc) {
        cli_errorf("record: no program to run; usage: tally record [OPTIONS] [--] PROG [ARGS]");
        goto out;
    }
    int check_opts = o.nlimits || o.output || o.nevents || o.nshow || o.flame_diff ||
                     o.ignore_object || o.no_ignore || o.format != CHECK_TEXT || o.top != 10;
    if (check_opts && !o.baseline) {
        cli_errorf("record: tally check's options (--limit, --format, ...) need "
                   "--baseline=NAME to check against");
        goto out;
    }
    if (save && !(savepath = check_baseline_path(&o, save))) goto out;
    if (o.baseline) {
        if (!(basepath = check_baseline_path(&o, o.baseline))) goto out;
        if (access(basepath, R_OK) != 0) {
            cli_errorf("record: no baseline '%s' (%s missing); save one first with "
                       "--save-baseline=%s",
                       o.baseline, basepath, o.baseline);
            rc = 1;
            goto out;
        }
    }
    if (out_pat && strstr(out_pat, "%q")) {
        cli_errorf("record: --out-file with %%q{VAR} cannot be used with baselines or "
                   "--clean-env; name the file plainly (%%p is fine)");
        goto out;
    }
    rc = 1;
    prog = clean ? cli_find_program(argv[i]) : xstrdup(argv[i]);
    if (!prog) {
        cli_errorf("record: %s: command not found in PATH", argv[i]);
        goto out;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        cli_errorf("record: cannot fork: %s", strerror(errno));
        goto out;
    }
    if (pid == 0) {
        long me = (long)getpid();
        char **av = xcalloc((size_t)(nkeep + argc - i) + 8, sizeof(*av));
        int n = 0;
        av[n++] = "tally";
        av[n++] = "record";
        for (int k = 0; k < nkeep; k++) {
            if (!strncmp(keep[k], "--out-file=", 11)) continue;
            av[n++] = keep[k];
        }
        char *of = out_pat ? expand_out(out_pat, me) : xasprintf("tally.out.%ld", me);
        av[n++] = xasprintf("--out-file=%s", of);
        av[n++] = "--";
        av[n++] = prog;
        for (int k = i + 1; k < argc; k++)
            av[n++] = argv[k];
        av[n] = NULL;
        if (clean) {
            /* the tests' overrides reach record, never the program (record drops them) */
            int e = 3;
            const char *keepvars[] = {"TALLY_VALGRIND_LIB", "TALLY_VALGRIND"};
            for (int k = 0; k < 2; k++) {
                const char *v = getenv(keepvars[k]);
                if (v) clean_env[e++] = xasprintf("%s=%s", keepvars[k], v);
            }
            execve("/proc/self/exe", av, clean_env);
        } else {
            execv("/proc/self/exe", av);
        }
        fprintf(stderr, "tally: record: cannot run tally itself: %s\n", strerror(errno));
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            cli_errorf("record: waitpid: %s", strerror(errno));
            goto out;
        }
    if (!save && !o.baseline) { /* --clean-env alone: the recording's own status */
        rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        goto out;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        cli_errorf("record: the recording failed (%s %d): no baseline saved or checked",
                   WIFEXITED(status) ? "exit status" : "signal",
                   WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        rc = WIFEXITED(status) && WEXITSTATUS(status) != 0 ? WEXITSTATUS(status) : 1;
        goto out;
    }
    outfile = out_pat ? expand_out(out_pat, (long)pid) : xasprintf("tally.out.%ld", (long)pid);
    rc = 0;
    if (o.baseline) {
        const char *bases[1] = {basepath};
        const char *news[1] = {outfile};
        rc = check_cli_run(&o, bases, 1, news, 1);
        if (rc == 1 || rc == 2) goto out;
    }
    if (save) {
        struct tally_error err;
        tally_error_clear(&err);
        char *dir = xstrdup(savepath);
        *strrchr(dir, '/') = '\0';
        int bad = make_dirs(dir, &err) || copy_file(outfile, savepath, &err);
        free(dir);
        if (bad) {
            cli_error(&err);
            rc = 1;
            goto out;
        }
        cli_note("record: saved baseline '%s' as %s", save, savepath);
    }
out:
    free(keep);
    free(prog);
    free(outfile);
    free(basepath);
    free(savepath);
    check_cli_release(&o);
    return rc;
}
