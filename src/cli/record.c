/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record.c - `tally record [OPTIONS] [--] PROG [ARGS]`: run PROG under
 * tally's own Valgrind tool (valgrind/tl_main.c).
 *
 * The tool lives in a private directory found from the tally binary
 * DIR/tally: DIR/valgrind/lib in the build tree, DIR/../lib/tally once
 * installed (`make install`), or $TALLY_VALGRIND_LIB when that is set. The
 * directory also holds the few files of Valgrind's own that the core loads
 * (the preload library, the default suppressions); it is given to Valgrind
 * as VALGRIND_LIB.
 * The file tally-valgrind-version in it names the Valgrind version the tool
 * was built for; `valgrind --version` must print the same.
 *
 * Every option before PROG (or before `--`) goes to Valgrind unchanged:
 * the tool's own options (--cache-sim, --out-file, ...; values checked
 * here first) and the core's (--trace-children=yes, -q, ...; names checked
 * here against Valgrind 3.19's list). Any other option is a usage error.
 *
 * TALLY_VALGRIND (for tests) replaces the `valgrind` command; neither it
 * nor TALLY_VALGRIND_LIB reaches PROG.
 */
#include "cli.h"
#include "check.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void record_usage(FILE *fp)
{
    fprintf(fp, "usage: tally record [OPTIONS] [--] PROG [ARGS]\n\n"
                "Run PROG under tally's Valgrind tool and write a callgrind-format profile\n"
                "(tally.out.PID by default) and, on stderr, Cachegrind's summary.\n\n"
                "Tool options (defaults in brackets):\n"
                "  --cache-sim=yes|no            simulate the I1, D1 and LL caches [no]\n"
                "  --I1=SIZE,ASSOC,LINE          I1 cache configuration [from the host]\n"
                "  --D1=SIZE,ASSOC,LINE          D1 cache configuration [from the host]\n"
                "  --LL=SIZE,ASSOC,LINE          LL cache configuration [from the host]\n"
                "  --simulate-wb=yes|no          write-back LL (Callgrind's): events ILdmr\n"
                "                                DLdmr DLdmw, misses that evict a dirty line [no]\n"
                "  --simulate-hwpref=yes|no      Callgrind's LL prefetcher of sequential\n"
                "                                lines, a stream per 4 KiB page [no]\n"
                "  --cacheuse=yes|no             Callgrind's cache-use events AcCost1 SpLoss1\n"
                "                                AcCost2 SpLoss2: per line loaded into L1/LL,\n"
                "                                1000/accesses and the bytes never accessed\n"
                "                                before it left; turns --dump-instr on [no]\n"
                "                                (these three turn on --cache-sim; no write-\n"
                "                                back or prefetch with --cacheuse=yes)\n"
                "  --branch-sim=yes|no           simulate branch prediction [no]\n"
                "  --collect-bus=yes|no          count global bus events (locked instructions,\n"
                "                                compare-and-swap): event Ge [no]\n"
                "  --collect-systime=no|yes|msec|usec|nsec\n"
                "                                count system calls and their time in ms\n"
                "                                (yes), us or ns: events sysCount sysTime, with\n"
                "                                nsec also sysCpuTime (thread CPU time) [no]\n"
                "  --calls=yes|no                the call graph: calls and inclusive costs [yes]\n"
                "  --dump-instr=yes|no           costs per instruction as well as per line,\n"
                "                                addresses within the object (Callgrind's) [no]\n"
                "  --dump-line=yes|no            line numbers in positions; no: addresses\n"
                "                                alone, with --dump-instr=yes [yes]\n"
                "  --compress-strings=yes|no     a name is written once, then as its id (N)\n"
                "                                [yes]\n"
                "  --compress-pos=yes|no         instruction positions relative to the one\n"
                "                                before (+n, -n, *) [yes]\n"
                "  --out-file=FILE               output file, %%p = pid, %%q{VAR} = $VAR\n"
                "                                [tally.out.%%p]\n"
                "  --callgrind-out-file=FILE     the same as --out-file (Callgrind's name)\n"
                "  --cachegrind-out-file=FILE    also write the cachegrind format\n"
                "  --collect-atstart=yes|no      collect from the start [yes]\n"
                "  --toggle-collect=FUNCTION     collect only inside FUNCTION: its entry and\n"
                "                                exit flip collection, as Callgrind; a pattern\n"
                "                                (* any characters, ? one) on the whole name\n"
                "                                as written (demangled); repeatable\n"
                "  --fn-skip=FUNCTION            calls into FUNCTION are not recorded: its code\n"
                "                                is its caller's (a pattern; repeatable)\n"
                "  --skip-plt=yes|no             calls through PLT stubs go to their target;\n"
                "                                no: each stub is a function 0x... [PLT]\n"
                "                                between caller and target [yes]\n"
                "  --skip-direct-rec=yes|no      a direct recursion keeps the caller's name (no\n"
                "                                new recursion level) [no, as Callgrind 3.19]\n"
                "  --separate-recs=N             name recursion levels up to N: f, f'2, f'3\n"
                "                                [1; Callgrind's is 2]\n"
                "  --separate-recsN=FUNCTION     the same for FUNCTION (a pattern)\n"
                "  --separate-callers=N          name functions with N callers: f'caller [0]\n"
                "  --separate-callersN=FUNCTION  the same for FUNCTION (a pattern)\n"
                "  --instr-atstart=yes|no        instrumentation on from the start; off, nothing\n"
                "                                is counted [yes] (--instr-at-start: the same)\n"
                "  --dump-before=FUNCTION        write a part when FUNCTION is entered\n"
                "  --zero-before=FUNCTION        zero all costs when FUNCTION is entered\n"
                "  --dump-after=FUNCTION         write a part when FUNCTION returns\n"
                "  --dump-every-bb=N             write a part every N basic blocks [0: never]\n"
                "  --combine-dumps=yes|no        all parts in one file; no: a file per part,\n"
                "                                FILE.N for the Nth dump, FILE at the end [yes]\n"
                "  --separate-threads=yes|no     one part per thread [no]\n"
                "  --collect-jumps=yes|no        jump=/jcnd= records [no]\n"
                "  --contexts=yes|no             also write the calling-context tree: every\n"
                "                                distinct stack with its self costs [no]\n"
                "  --context-depth=N             keep stacks at most N frames deep [0: no limit]\n"
                "  --contexts-out-file=FILE      the context tree's file [tally.ctx.%%p];\n"
                "                                with --separate-threads, FILE-TID per thread\n"
                "  --input-sensitive=yes|no      input-sensitive profile: the RMS and cost of\n"
                "                                every activation, as an aprof report [no]\n"
                "  --drms=yes|no                 input = DRMS: also what the kernel and other\n"
                "                                threads write during the activation [no]\n"
                "  --memory-resolution=1|2|4|8|16  bytes per memory cell [4]\n"
                "  --cost=bb|instr               cost: basic blocks or instructions [bb]\n"
                "  --collect-cct=yes|no          tuples per calling context [no]\n"
                "  --aprof-out-file=FILE         the aprof report [tally.aprof.%%p]; with\n"
                "                                --separate-threads, FILE-TID per thread\n\n"
                "Signal handlers are called by a `<signal N>` root in the call graph.\n"
                "With -q nothing is said but errors (no summary, no \"wrote FILE\").\n"
                "Client requests (start/stop collection, zero, dump a part): see tally.h\n"
                "(PREFIX/include/tally.h once installed, build/valgrind/include/ in the\n"
                "build tree); Callgrind's (callgrind.h) and Cachegrind's instrumentation\n"
                "requests (cachegrind.h) work as under those tools.\n\n"
                "The tool is looked for in DIR/valgrind/lib (the build tree) and then in\n"
                "DIR/../lib/tally (installed), DIR being the directory of the tally binary;\n"
                "the environment variable TALLY_VALGRIND_LIB=DIR names another directory.\n"
                "Valgrind's core options pass through (e.g. --trace-children=yes, -q; see\n"
                "'valgrind --help' and the list in docs/tally-record.md); any other option is\n"
                "refused. Documentation: docs/tally-record.md.\n\n");
    record_check_usage(fp);
}

/* The directory holding the running tally binary, or NULL. */
static char *self_dir(void)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return NULL;
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (!slash) return NULL;
    *slash = '\0';
    return xstrdup(buf[0] ? buf : "/");
}

/* The first line of FILE without its newline, or NULL. */
static char *read_line(const char *file)
{
    FILE *fp = fopen(file, "r");
    if (!fp) return NULL;
    char buf[256];
    char *r = fgets(buf, sizeof buf, fp);
    fclose(fp);
    if (!r) return NULL;
    buf[strcspn(buf, "\r\n")] = '\0';
    return xstrdup(buf);
}

/*
 * Runs `VALGRIND --version` and returns its first output line, or NULL
 * with *missing set when the command cannot be started.
 */
static char *valgrind_version(const char *valgrind, int *missing)
{
    int fd[2];
    *missing = 0;
    if (pipe(fd) != 0) return NULL;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return NULL;
    }
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execlp(valgrind, valgrind, "--version", (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    char buf[256];
    size_t len = 0;
    ssize_t r;
    while (len < sizeof buf - 1 && (r = read(fd[0], buf + len, sizeof buf - 1 - len)) != 0) {
        if (r < 0) {
            if (errno == EINTR) continue;
            break;
        }
        len += (size_t)r;
    }
    buf[len] = '\0';
    close(fd[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && len == 0) {
        *missing = 1;
        return NULL;
    }
    buf[strcspn(buf, "\r\n")] = '\0';
    return len ? xstrdup(buf) : NULL;
}

/* Is PROG something exec can start (a path, or a name found in PATH)? */
static int program_exists(const char *prog)
{
    if (strchr(prog, '/')) {
        struct stat st;
        return stat(prog, &st) == 0 && S_ISREG(st.st_mode) && access(prog, X_OK) == 0;
    }
    char *found = cli_find_program(prog);
    int ok = found != NULL;
    free(found);
    return ok;
}

/* The tool's file: Valgrind names a tool TOOL-ARCH-OS (valgrind/Makefile) */
#if defined(__aarch64__)
#define TOOL_FILE "tally-arm64-linux"
#else
#define TOOL_FILE "tally-amd64-linux"
#endif

/*
 * The directory holding tally's Valgrind tool: $TALLY_VALGRIND_LIB when
 * set, else the first of DIR/valgrind/lib (the build tree) and
 * DIR/../lib/tally (an installed prefix) that holds the tool, DIR being the
 * directory of the tally binary (symbolic links resolved). NULL after an
 * error naming every place looked at.
 */
static char *find_tool_dir(void)
{
    const char *env_lib = getenv("TALLY_VALGRIND_LIB");
    if (env_lib && *env_lib) {
        char *tool = xmalloc(strlen(env_lib) + sizeof "/" TOOL_FILE);
        sprintf(tool, "%s/" TOOL_FILE, env_lib);
        int ok = access(tool, R_OK | X_OK) == 0;
        if (!ok)
            cli_errorf("record: tally's Valgrind tool is missing: %s (TALLY_VALGRIND_LIB is set to "
                       "'%s'; unset it to use the tool installed with tally)",
                       tool, env_lib);
        free(tool);
        return ok ? xstrdup(env_lib) : NULL;
    }
    char *dir = self_dir();
    if (!dir) {
        cli_errorf("record: cannot find the directory of the tally binary (/proc/self/exe)");
        return NULL;
    }
    /* DIR/.. written without the "..": "/usr/local" for "/usr/local/bin". */
    size_t plen = strlen(dir);
    while (plen > 0 && dir[plen - 1] != '/')
        plen--;
    while (plen > 1 && dir[plen - 1] == '/')
        plen--;
    const char *bases[] = {dir, dir};
    size_t blen[] = {strlen(dir), plen == 1 && dir[0] == '/' ? 0 : plen};
    static const char *const places[] = {"/valgrind/lib", "/lib/tally"};
    enum { NPLACES = sizeof places / sizeof places[0] };
    char *cand[NPLACES];
    char *found = NULL;
    for (int k = 0; k < NPLACES; k++) {
        cand[k] = xmalloc(blen[k] + strlen(places[k]) + sizeof "/" TOOL_FILE);
        sprintf(cand[k], "%.*s%s/" TOOL_FILE, (int)blen[k], bases[k], places[k]);
        if (!found && access(cand[k], R_OK | X_OK) == 0) {
            found = xstrdup(cand[k]);
            *strrchr(found, '/') = '\0';
        }
    }
    if (!found)
        cli_errorf("record: tally's Valgrind tool (" TOOL_FILE ") is missing; looked for %s "
                   "(build tree) and %s (installed); build it with 'make' (it needs Valgrind's "
                   "development files: apt-get install valgrind pkg-config), reinstall with 'make "
                   "install', or set TALLY_VALGRIND_LIB to the directory holding it",
                   cand[0], cand[1]);
    for (int k = 0; k < NPLACES; k++)
        free(cand[k]);
    free(dir);
    return found;
}

/* The tool's own options and what their values must be (record_usage()). */
enum optkind { OPT_YESNO, OPT_YES, OPT_SYSTIME, OPT_CACHE, OPT_COUNT, OPT_RES, OPT_COST, OPT_TEXT };
static const struct {
    const char *name;
    enum optkind kind;
} tool_options[] = {
    {"--cache-sim", OPT_YESNO},
    {"--I1", OPT_CACHE},
    {"--D1", OPT_CACHE},
    {"--LL", OPT_CACHE},
    {"--simulate-wb", OPT_YESNO},
    {"--simulate-hwpref", OPT_YESNO},
    {"--cacheuse", OPT_YESNO},
    {"--branch-sim", OPT_YESNO},
    {"--collect-bus", OPT_YESNO},
    {"--collect-systime", OPT_SYSTIME},
    {"--calls", OPT_YESNO},
    {"--dump-instr", OPT_YESNO},
    {"--dump-line", OPT_YESNO},
    {"--compress-strings", OPT_YESNO},
    {"--compress-pos", OPT_YESNO},
    {"--out-file", OPT_TEXT},
    {"--callgrind-out-file", OPT_TEXT},
    {"--cachegrind-out-file", OPT_TEXT},
    {"--collect-atstart", OPT_YESNO},
    {"--instr-atstart", OPT_YESNO},
    {"--instr-at-start", OPT_YESNO},
    {"--dump-before", OPT_TEXT},
    {"--zero-before", OPT_TEXT},
    {"--dump-after", OPT_TEXT},
    {"--dump-every-bb", OPT_COUNT},
    {"--combine-dumps", OPT_YESNO},
    {"--toggle-collect", OPT_TEXT},
    {"--fn-skip", OPT_TEXT},
    {"--skip-plt", OPT_YESNO},
    {"--skip-direct-rec", OPT_YESNO},
    {"--separate-recs", OPT_COUNT},
    {"--separate-callers", OPT_COUNT},
    {"--separate-threads", OPT_YESNO},
    {"--collect-jumps", OPT_YESNO},
    {"--contexts", OPT_YESNO},
    {"--context-depth", OPT_COUNT},
    {"--contexts-out-file", OPT_TEXT},
    {"--input-sensitive", OPT_YESNO},
    {"--drms", OPT_YESNO},
    {"--memory-resolution", OPT_RES},
    {"--cost", OPT_COST},
    {"--collect-cct", OPT_YESNO},
    {"--aprof-out-file", OPT_TEXT},
};
enum { NTOOL_OPTIONS = sizeof tool_options / sizeof tool_options[0] };

/*
 * Valgrind 3.19's core options that tally's tool runs with (from `valgrind
 * --help` and `--help-debug`), passed on unchanged; Valgrind checks their
 * values. Left out: --tool (always tally's), the options of tools that
 * replace malloc (--alignment, --trace-malloc, --xtree-*: the core refuses
 * them for this tool) and the help options. These take a value after '=':
 */
static const char *const core_options[] = {
    "--allow-mismatched-debuginfo",
    "--aspace-minaddr",
    "--avg-transtab-entry-size",
    "--child-silent-after-fork",
    "--command-line-only",
    "--core-redzone-size",
    "--debug-dump",
    "--debuginfo-server",
    "--default-suppressions",
    "--demangle",
    "--dsymutil",
    "--dump-error",
    "--error-exitcode",
    "--error-limit",
    "--error-markers",
    "--exit-on-first-error",
    "--extra-debuginfo-path",
    "--fair-sched",
    "--fullpath-after",
    "--gen-suppressions",
    "--input-fd",
    "--keep-debuginfo",
    "--kernel-variant",
    "--log-fd",
    "--log-file",
    "--log-socket",
    "--main-stacksize",
    "--max-stackframe",
    "--max-threads",
    "--merge-recursive-frames",
    "--num-callers",
    "--num-transtab-sectors",
    "--profile-flags",
    "--profile-heap",
    "--profile-interval",
    "--progress-interval",
    "--px-default",
    "--px-file-backed",
    "--read-inline-info",
    "--read-var-info",
    "--redzone-size",
    "--require-text-symbol",
    "--resync-filter",
    "--run-cxx-freeres",
    "--run-libc-freeres",
    "--sanity-level",
    "--show-below-main",
    "--show-emwarns",
    "--show-error-list",
    "--sigill-diagnostics",
    "--sim-hints",
    "--smc-check",
    "--soname-synonyms",
    "--stats",
    "--suppressions",
    "--sym-offsets",
    "--time-stamp",
    "--trace-cfi",
    "--trace-children",
    "--trace-children-skip",
    "--trace-children-skip-by-arg",
    "--trace-flags",
    "--trace-notabove",
    "--trace-notbelow",
    "--trace-redir",
    "--trace-sched",
    "--trace-signals",
    "--trace-symtab",
    "--trace-symtab-patt",
    "--trace-syscalls",
    "--track-fds",
    "--unw-stack-scan-frames",
    "--unw-stack-scan-thresh",
    "--valgrind-stacksize",
    "--vex-guest-chase",
    "--vex-guest-max-insns",
    "--vex-iropt-level",
    "--vex-iropt-register-updates",
    "--vex-iropt-unroll-thresh",
    "--vex-iropt-verbosity",
    "--vex-regalloc-version",
    "--vgdb",
    "--vgdb-error",
    "--vgdb-poll",
    "--vgdb-prefix",
    "--vgdb-shadow-registers",
    "--vgdb-stop-at",
    "--wait-for-gdb",
    "--xml",
    "--xml-fd",
    "--xml-file",
    "--xml-socket",
    "--xml-user-comment",
};
/* ... and these take none */
static const char *const core_flags[] = {"-q", "-v", "-d", "-s", "--quiet", "--verbose"};
enum {
    NCORE_OPTIONS = sizeof core_options / sizeof core_options[0],
    NCORE_FLAGS = sizeof core_flags / sizeof core_flags[0],
};

static int in_list(const char *name, size_t n, const char *const *list, size_t count)
{
    for (size_t k = 0; k < count; k++)
        if (strlen(list[k]) == n && strncmp(name, list[k], n) == 0) return 1;
    return 0;
}

/* Is s a whole decimal number (no sign)? */
static int is_count(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9') return 0;
    return 1;
}

/*
 * Checks one option before Valgrind starts: a tool option's value; a core
 * option's name (its value is Valgrind's to check); anything else is a
 * usage error, with the nearest known name. Returns 0, or 2 after a usage
 * error.
 */
static int check_option(const char *a)
{
    size_t n = strcspn(a, "=");
    const char *v = a[n] ? a + n + 1 : NULL;
    /* --separate-recsN=FUNCTION, --separate-callersN=FUNCTION */
    static const char *const per_fn[] = {"--separate-recs", "--separate-callers"};
    for (size_t k = 0; k < 2; k++) {
        size_t l = strlen(per_fn[k]);
        if (n <= l || strncmp(a, per_fn[k], l) != 0 || strspn(a + l, "0123456789") != n - l)
            continue;
        if (v && *v) return 0;
        cli_errorf("record: '%s': %sN takes =FUNCTION; see 'tally record --help'", a, per_fn[k]);
        return 2;
    }
    for (size_t k = 0; k < NTOOL_OPTIONS; k++) {
        if (strlen(tool_options[k].name) != n || strncmp(a, tool_options[k].name, n) != 0) continue;
        if (!v) {
            cli_errorf("record: '%s': options take their value after '=' (e.g. --cache-sim=no)", a);
            return 2;
        }
        int ok = v != NULL;
        const char *want = "";
        switch (tool_options[k].kind) {
        case OPT_YESNO:
            ok = ok && (!strcmp(v, "yes") || !strcmp(v, "no"));
            want = "yes or no";
            break;
        case OPT_SYSTIME:
            ok = ok && (!strcmp(v, "yes") || !strcmp(v, "no") || !strcmp(v, "msec") ||
                        !strcmp(v, "usec") || !strcmp(v, "nsec"));
            want = "no, yes, msec, usec or nsec";
            break;
        case OPT_YES:
            ok = ok && !strcmp(v, "yes");
            want = "yes (calls through PLT stubs always go to their target in tally)";
            break;
        case OPT_CACHE: {
            /* SIZE,ASSOC,LINE: three numbers (the tool checks the geometry) */
            const char *p = v;
            for (int f = 0; ok && f < 3; f++) {
                size_t d = strspn(p, "0123456789");
                ok = d > 0 && p[d] == (f < 2 ? ',' : '\0');
                p += d + 1;
            }
            want = "SIZE,ASSOC,LINE (three numbers, e.g. 32768,8,64)";
            break;
        }
        case OPT_COUNT:
            ok = ok && is_count(v);
            want = "a whole number";
            break;
        case OPT_RES:
            ok = ok && (!strcmp(v, "1") || !strcmp(v, "2") || !strcmp(v, "4") || !strcmp(v, "8") ||
                        !strcmp(v, "16"));
            want = "1, 2, 4, 8 or 16";
            break;
        case OPT_COST:
            ok = ok && (!strcmp(v, "bb") || !strcmp(v, "instr"));
            want = "bb or instr";
            break;
        case OPT_TEXT:
            ok = ok && *v;
            want = "a non-empty value";
            break;
        }
        if (ok) return 0;
        cli_errorf("record: '%s': %.*s takes %s; see 'tally record --help'", a, (int)n, a, want);
        return 2;
    }
    if (!v && in_list(a, n, core_flags, NCORE_FLAGS)) return 0;
    if (in_list(a, n, core_options, NCORE_OPTIONS)) {
        if (v) return 0;
        cli_errorf("record: '%s': options take their value after '=' (e.g. --cache-sim=no)", a);
        return 2;
    }
    /* neither the tool's nor the core's: a typo? */
    const char *names[NTOOL_OPTIONS + NCORE_OPTIONS + NCORE_FLAGS];
    size_t nn = 0;
    for (size_t k = 0; k < NTOOL_OPTIONS; k++)
        names[nn++] = tool_options[k].name;
    for (size_t k = 0; k < NCORE_OPTIONS; k++)
        names[nn++] = core_options[k];
    for (size_t k = 0; k < NCORE_FLAGS; k++)
        names[nn++] = core_flags[k];
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)n, a);
    const char *near = n > 2 ? cli_nearest(name, names, nn) : NULL;
    if (near)
        cli_errorf("record: unknown option '%s'; did you mean '%s'? See 'tally record --help'", a,
                   near);
    else
        cli_errorf("record: unknown option '%s' (neither tally's nor one of Valgrind's core "
                   "options); see 'tally record --help'",
                   a);
    return 2;
}

int cmd_record(int argc, char **argv)
{
    if (record_check_wanted(argc, argv)) return record_check(argc, argv);
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            record_usage(stdout);
            return 0;
        }
        if (a[0] != '-') break;
        if (!strncmp(a, "--tool=", 7)) {
            cli_errorf("record: '%s': the tool is always tally's", a);
            return 2;
        }
        if (check_option(a)) return 2;
    }
    int nopts = 0;
    for (int k = 1; k < i; k++)
        if (strcmp(argv[k], "--") != 0) nopts++;
    if (i >= argc) {
        cli_errorf("record: no program to run; usage: tally record [OPTIONS] [--] PROG [ARGS]");
        return 2;
    }
    const char *prog = argv[i];
    if (!program_exists(prog)) {
        struct stat st;
        if (strchr(prog, '/') && stat(prog, &st) == 0 && S_ISDIR(st.st_mode))
            cli_errorf("record: %s: is a directory, not a program to run", prog);
        else
            cli_errorf("record: %s: %s", prog,
                       strchr(prog, '/') ? "no such executable file" : "command not found in PATH");
        return 1;
    }

    /* The private lib directory and the tool in it. */
    char *lib = NULL, *tool = NULL, *want = NULL, *valgrind = NULL, *have = NULL;
    char **av = NULL;
    lib = find_tool_dir();
    if (!lib) goto out;
    tool = xmalloc(strlen(lib) + 64);
    sprintf(tool, "%s/tally-valgrind-version", lib);
    want = read_line(tool);
    if (!want || !*want) {
        cli_errorf("record: %s/tally-valgrind-version is missing or empty; rebuild with 'make'",
                   lib);
        goto out;
    }

    /* The installed Valgrind must be the one the tool was built for. */
    const char *env_vg = getenv("TALLY_VALGRIND");
    valgrind = xstrdup(env_vg && *env_vg ? env_vg : "valgrind");
    int missing;
    have = valgrind_version(valgrind, &missing);
    if (!have) {
        if (missing)
            cli_errorf("record: Valgrind is not installed ('%s' not found); install %s "
                       "(Debian 12: apt-get install valgrind)",
                       valgrind, want);
        else
            cli_errorf("record: '%s --version' printed nothing; install %s", valgrind, want);
        goto out;
    }
    if (strcmp(have, want) != 0) {
        cli_errorf("record: tally's Valgrind tool was built for %s but '%s --version' says %s; "
                   "rebuild tally ('make clean all') against the installed Valgrind, or install %s",
                   want, valgrind, have, want);
        goto out;
    }

    /* valgrind --tool=tally OPTIONS PROG ARGS */
    av = xmalloc(((size_t)nopts + (size_t)(argc - i) + 3) * sizeof *av);
    int n = 0;
    av[n++] = valgrind;
    av[n++] = "--tool=tally";
    for (int k = 1; k < i; k++)
        if (strcmp(argv[k], "--") != 0) av[n++] = argv[k];
    for (int k = i; k < argc; k++)
        av[n++] = argv[k];
    av[n] = NULL;
    if (setenv("VALGRIND_LIB", lib, 1) != 0) {
        cli_errorf("record: cannot set VALGRIND_LIB: %s", strerror(errno));
        goto out;
    }
    unsetenv("TALLY_VALGRIND_LIB");
    unsetenv("TALLY_VALGRIND");
    fflush(NULL);
    execvp(valgrind, av);
    cli_errorf("record: cannot run %s: %s", valgrind, strerror(errno));
out:
    free(av);
    free(have);
    free(valgrind);
    free(want);
    free(tool);
    free(lib);
    return 1;
}
