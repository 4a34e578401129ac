/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * server.c - `tally view`'s web server on libmicrohttpd (server.h).
 */
#include "server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>

#include "../io/bytebuf.h"
#include "api.h"
#include "page.h"

#define MAX_CONNECTIONS 256
#define CONNECTION_MEMORY (64 * 1024) /* a request's headers must fit */
#define CONNECTION_TIMEOUT_S 60

struct view_server {
    struct view_session *s;
    struct MHD_Daemon *d;
    char token[VIEW_TOKEN_HEX + 1];
    char url[128];
    char hosts[2][80]; /* Host header values accepted */
    int nhosts;
    char *page;
    size_t page_len;
};

int view_random_hex(char *buf, size_t n)
{
    unsigned char raw[64];
    if (n > 2 * sizeof(raw)) return -1;
    size_t need = (n + 1) / 2, got = 0;
    while (got < need) {
        ssize_t k = getrandom(raw + got, need - got, 0);
        if (k < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        got += (size_t)k;
    }
    for (size_t i = 0; i < n; i++)
        buf[i] = "0123456789abcdef"[(raw[i / 2] >> (i % 2 ? 0 : 4)) & 15];
    buf[n] = 0;
    return 0;
}

static void make_page(struct view_server *v)
{
    v->page = view_page(NULL, &v->page_len);
}

/* ---- one request ------------------------------------------------------------------ */

struct argv_fill {
    struct view_args *a;
    int overflow;
};

static enum MHD_Result take_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                const char *value)
{
    struct argv_fill *f = cls;
    (void)kind;
    if (f->a->n == VIEW_MAX_ARGS) {
        f->overflow = 1;
        return MHD_NO;
    }
    f->a->key[f->a->n] = key ? key : "";
    f->a->val[f->a->n++] = value ? value : "";
    return MHD_YES;
}

/* Equal strings, in a time that does not tell how much of them matched. */
static int same_secret(const char *given, const char *token)
{
    size_t n = strlen(token);
    if (!given || strlen(given) != n) return 0;
    unsigned char d = 0;
    for (size_t i = 0; i < n; i++)
        d |= (unsigned char)(given[i] ^ token[i]);
    return d == 0;
}

static enum MHD_Result send_reply(struct MHD_Connection *c, int status, const char *type,
                                  char *body, size_t len)
{
    struct MHD_Response *res = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (!res) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(res, "Content-Type", type);
    MHD_add_response_header(res, "Cache-Control", "no-store");
    MHD_add_response_header(res, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(res, "X-Frame-Options", "DENY");
    MHD_add_response_header(res, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(res, "Content-Security-Policy",
                            "default-src 'none'; script-src 'unsafe-inline'; "
                            "style-src 'unsafe-inline'; img-src 'self' data:; "
                            "connect-src 'self'; base-uri 'none'; form-action 'none'; "
                            "frame-ancestors 'none'");
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED) MHD_add_response_header(res, "Allow", "GET, HEAD");
    enum MHD_Result r = MHD_queue_response(c, (unsigned)status, res);
    MHD_destroy_response(res);
    return r;
}

static enum MHD_Result send_error(struct MHD_Connection *c, int status, const char *msg)
{
    struct bytebuf b = {0};
    bytebuf_printf(&b, "{\"error\": \"%s\"}\n", msg); /* msg: fixed texts without quotes */
    return send_reply(c, status, "application/json; charset=utf-8", b.s, b.n);
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **state)
{
    struct view_server *v = cls;
    (void)version;
    (void)upload;
    static int marker;
    if (!*state) {
        /* the headers have come; a body would come in the next calls */
        *state = &marker;
        if (strcmp(method, "GET") && strcmp(method, "HEAD"))
            return send_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD are answered");
        const char *len = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
        if ((len && strcmp(len, "0")) ||
            MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Transfer-Encoding"))
            return send_error(c, MHD_HTTP_CONTENT_TOO_LARGE, "a request has no body here");
        return MHD_YES;
    }
    if (*upload_size) { /* a body all the same: refused above, drop it */
        *upload_size = 0;
        return MHD_YES;
    }
    const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
    int host_ok = 0;
    for (int i = 0; host && i < v->nhosts; i++)
        if (!strcmp(host, v->hosts[i])) host_ok = 1;
    if (!host_ok) return send_error(c, MHD_HTTP_MISDIRECTED_REQUEST, "wrong Host header");
    struct view_args a = {0};
    struct argv_fill f = {&a, 0};
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, take_arg, &f);
    if (f.overflow) return send_error(c, MHD_HTTP_BAD_REQUEST, "too many arguments");
    if (!same_secret(view_arg(&a, "t"), v->token))
        return send_error(c, MHD_HTTP_FORBIDDEN,
                          "the token is missing or wrong: open the URL tally view printed");
    if (!strcmp(url, "/")) {
        char *page = xmalloc(v->page_len);
        memcpy(page, v->page, v->page_len);
        return send_reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", page, v->page_len);
    }
    if (strncmp(url, "/api/", 5)) return send_error(c, MHD_HTTP_NOT_FOUND, "no such page");
    struct view_reply r;
    view_answer(v->s, url, &a, &r);
    return send_reply(c, r.status, r.type, r.body, r.len);
}

/* MHD_OPTION_UNESCAPE_CALLBACK: view_unescape() (api.h) */
static size_t unescape(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls;
    (void)c;
    return view_unescape(s);
}

/* ---- start and stop ---------------------------------------------------------------- */

struct view_server *view_server_start(struct view_session *s, const struct view_server_options *o,
                                      struct tally_error *err)
{
    const char *addr = o->address ? o->address : "127.0.0.1";
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof(ss));
    struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
    int v6 = 0;
    if (inet_pton(AF_INET, addr, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)o->port);
    } else if (inet_pton(AF_INET6, addr, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)o->port);
        v6 = 1;
    } else {
        tally_error_set(err, NULL, 0, "--address=%s: not a numeric IPv4 or IPv6 address", addr);
        return NULL;
    }
    struct view_server *v = xcalloc(1, sizeof(*v));
    v->s = s;
    if (o->token) {
        snprintf(v->token, sizeof(v->token), "%s", o->token);
    } else if (view_random_hex(v->token, VIEW_TOKEN_HEX)) {
        free(v);
        tally_error_set(err, NULL, 0, "cannot get random bytes for the token: %s", strerror(errno));
        return NULL;
    }
    make_page(v);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | (v6 ? MHD_USE_IPv6 : 0);
    v->d = MHD_start_daemon(flags, (uint16_t)o->port, NULL, NULL, answer, v, MHD_OPTION_SOCK_ADDR,
                            (struct sockaddr *)&ss, MHD_OPTION_CONNECTION_LIMIT,
                            (unsigned)MAX_CONNECTIONS, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
                            (size_t)CONNECTION_MEMORY, MHD_OPTION_CONNECTION_TIMEOUT,
                            (unsigned)CONNECTION_TIMEOUT_S, MHD_OPTION_UNESCAPE_CALLBACK, unescape,
                            NULL, MHD_OPTION_END);
    if (!v->d) {
        tally_error_set(err, NULL, 0, "cannot listen on %s port %u (%s)", addr, o->port,
                        errno ? strerror(errno) : "libmicrohttpd refused");
        free(v->page);
        free(v);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(v->d, MHD_DAEMON_INFO_BIND_PORT);
    unsigned port = info ? info->port : o->port;
    const char *shown = v6 ? "[" : "";
    snprintf(v->hosts[v->nhosts++], sizeof(v->hosts[0]), "%s%s%s:%u", shown, addr, v6 ? "]" : "",
             port);
    if (!strcmp(addr, "127.0.0.1") || !strcmp(addr, "::1"))
        snprintf(v->hosts[v->nhosts++], sizeof(v->hosts[0]), "localhost:%u", port);
    snprintf(v->url, sizeof(v->url), "http://%s/?t=%s", v->hosts[0], v->token);
    return v;
}

const char *view_server_url(const struct view_server *v)
{
    return v->url;
}

void view_server_stop(struct view_server *v)
{
    if (!v) return;
    MHD_stop_daemon(v->d);
    free(v->page);
    free(v);
}
