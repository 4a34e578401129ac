/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * server.h - the web server of `tally view` (libmicrohttpd).
 *
 * It listens on one address (127.0.0.1 unless the user names another)
 * and answers GET and HEAD only:
 *   /?t=TOKEN          the page (assets/view.*, embedded at build time)
 *   /api/...?t=TOKEN   the API (api.h)
 * Every request must carry the token (compared in constant time) and a
 * Host header that names the address the server listens on, with its
 * port (`127.0.0.1:PORT`, and `localhost:PORT` / `[::1]:PORT` when that
 * is a loopback address): a page of another site cannot reach the server
 * through DNS rebinding. Requests with a body, too many arguments or an
 * unknown path get an error. One internal thread serves every connection
 * and asks the session one question at a time.
 */
#ifndef TALLY_VIEW_SERVER_H
#define TALLY_VIEW_SERVER_H
#include "../model/error.h"
#include "session.h"

#define VIEW_TOKEN_HEX 32

struct view_server;

struct view_server_options {
    const char *address; /* numeric IPv4 or IPv6 address; NULL = 127.0.0.1 */
    unsigned port;       /* 0 = any free port */
    const char *token;   /* VIEW_TOKEN_HEX hex digits; NULL = a random one */
};

/* Start serving s (which must outlive the server). Returns the server, or
 * NULL with err (the address cannot be bound, ...). */
struct view_server *view_server_start(struct view_session *s, const struct view_server_options *o,
                                      struct tally_error *err);
/* The URL of the page, with the token ("http://127.0.0.1:PORT/?t=..."). */
const char *view_server_url(const struct view_server *v);
void view_server_stop(struct view_server *v);

/* Fill buf with n random hex digits and a NUL (getrandom). Returns 0, or -1. */
int view_random_hex(char *buf, size_t n);

#endif
