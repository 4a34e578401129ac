/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view.c - `tally view`: explore profiles in the browser. Reads the inputs
 * as every command does, builds the session (view/session.h), starts the
 * server (view/server.h), prints its URL, opens the browser and serves
 * until SIGINT or SIGTERM. The session is made by viewload.c, as for
 * `tally report`. See docs/tally-view.md.
 */
#include "cli.h"
#include "../view/server.h"
#include "../view/session.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

struct view_options {
    const char *address, *title, *editor;
    unsigned port;
    int no_browser;
    struct strlist include;
    struct strlist base;
};

static void view_usage(FILE *fp)
{
    fputs("usage: tally view [OPTIONS] FILE...\n"
          "\n"
          "Explore profiles in the browser: a web server on this machine answers\n"
          "the page and its questions, so a profile of any size opens at once.\n"
          "Reads what every command reads: callgrind, cachegrind and contexts files\n"
          "(plain, gzip or zstd; several are added up), the contexts and callgrind\n"
          "files of one recording (joined: exact flame graph), per-thread sets, and\n"
          "a program built with -pg followed by its gmon.out files.\n"
          "\n"
          "The page: every function in one table (sort by any column, search with\n"
          "a regex), the callers and callees of the selected function, the call\n"
          "graph around it (Graphviz's 'dot'), its source with the cost of each\n"
          "line, the flame graph and icicle, and the sandwich (what calls it and\n"
          "what it calls). A click selects a function everywhere; the URL keeps\n"
          "what is shown, so it can be sent to someone who opens the same files.\n"
          "\n"
          "The server listens on 127.0.0.1 and answers only requests that carry\n"
          "the token of the URL it prints; it reads nothing but the profiles and\n"
          "the source files they name. Ctrl-C stops it.\n"
          "\n"
          "Options:\n"
          "  --port=N            listen on port N (default: a free port)\n"
          "  --address=ADDR      listen on this numeric address instead of 127.0.0.1\n"
          "                      (anyone who can reach it and has the URL sees the\n"
          "                      profile and its source files)\n"
          "  --no-browser        print the URL, do not open a browser\n"
          "  -I, --include=DIR   also look for source files in DIR (repeatable)\n"
          "  --editor=TEMPLATE   link each source line to an editor: {path} and\n"
          "                      {line} are replaced, e.g. 'vscode://file/{path}:{line}'\n"
          "  --title=TEXT        the page's title\n"
          "  --base=FILE         compare with FILE (repeatable: the files are added\n"
          "                      up): every view shows the change from it, the\n"
          "                      table sorts by it, the pictures are coloured by it\n"
          "  -h, --help          show this help\n",
          fp);
}

static enum cli_opt view_option(void *ctx, int argc, char **argv, int *i, int *missing)
{
    struct view_options *o = ctx;
    const char *v;
    if ((v = cli_optval(argc, argv, i, "--port", missing))) {
        char *end;
        errno = 0;
        unsigned long n = strtoul(v, &end, 10);
        if (!*v || *end || *v == '-' || errno || n > 65535) {
            cli_errorf("view: --port wants a number from 0 to 65535, not '%s'", v);
            return CLI_OPT_BAD;
        }
        o->port = (unsigned)n;
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--address", missing))) {
        o->address = v;
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--editor", missing))) {
        if (!strstr(v, "{path}")) {
            cli_errorf("view: --editor wants a template with {path} (and {line}), not '%s'", v);
            return CLI_OPT_BAD;
        }
        o->editor = v;
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--title", missing))) {
        o->title = v;
    } else if (!*missing && ((v = cli_optval(argc, argv, i, "--include", missing)) ||
                             (!*missing && (v = cli_shortval(argc, argv, i, "-I", missing))))) {
        strlist_push(&o->include, v);
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--base", missing))) {
        strlist_push(&o->base, v);
    } else if (!*missing && !strcmp(argv[*i], "--no-browser")) {
        o->no_browser = 1;
    } else {
        return CLI_OPT_UNKNOWN;
    }
    return CLI_OPT_TAKEN;
}

/* Open url in the user's browser ($BROWSER, else xdg-open under a desktop). */
static void open_browser(const char *url)
{
    const char *browser = getenv("BROWSER");
    if (!browser || !*browser) {
        if (!getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY")) {
            cli_note("no desktop here: open the URL in a browser");
            return;
        }
        browser = "xdg-open";
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    char *argv[] = {(char *)browser, (char *)url, NULL};
    pid_t pid;
    if (posix_spawnp(&pid, browser, &fa, NULL, argv, environ))
        cli_note("cannot start %s: open the URL in a browser", browser);
    posix_spawn_file_actions_destroy(&fa);
}

int cmd_view(int argc, char **argv)
{
    struct view_options o;
    memset(&o, 0, sizeof(o));
    struct cli_args a = {.cmd = "view", .usage = view_usage};
    int rc = cli_parse_args(argc, argv, &a, view_option, &o);
    if (!rc && a.output)
        rc = cli_bad_usage("view", "writes no file (%s); see 'tally view --help'", a.output);
    if (!rc && a.nfiles == 0) {
        cli_errorf("view: no input files; see 'tally view --help'");
        rc = 2;
    }
    if (rc) {
        strlist_release(&o.include);
        strlist_release(&o.base);
        free(a.files);
        return rc == 1 ? 0 : rc;
    }
    struct tally_error err;
    tally_error_clear(&err);
    struct cli_view_load lo = {
        .title = o.title, .editor = o.editor, .include = o.include, .base = &o.base};
    struct view_session *s = cli_view_load((const char *const *)a.files, a.nfiles, &lo, &err);
    strlist_release(&o.base);
    strlist_release(&o.include);
    free(a.files);
    if (!s) {
        cli_error(&err);
        return 1;
    }
    /* the server's thread must not take the signals that stop it */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);
    struct view_server_options so = {.address = o.address, .port = o.port};
    struct view_server *v = view_server_start(s, &so, &err);
    if (!v) {
        view_session_free(s);
        cli_error(&err);
        return 1;
    }
    fprintf(stderr, "tally: view at %s\n", view_server_url(v));
    fflush(stderr);
    if (!o.no_browser) open_browser(view_server_url(v));
    int sig = 0;
    while (sigwait(&stop, &sig) != 0)
        ;
    view_server_stop(v);
    view_session_free(s);
    return 0;
}
