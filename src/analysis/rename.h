/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rename.h - rewriting file and function names with `s/REGEX/REPL/FLAGS`.
 *
 * This is what `--mod-filename` and `--mod-funcname` take (tally diff, and
 * tally annotate). The expression has the shape of a Perl substitution:
 *
 *   s/REGEX/REPL/        replace the first match of REGEX by REPL
 *   s/REGEX/REPL/g       replace every match
 *   s/REGEX/REPL/i       match without regard to case ("gi"/"ig": both)
 *
 * REGEX is a Perl-compatible regular expression (PCRE2, byte mode: `\w`
 * is ASCII). In REGEX and REPL, `\/` stands for a slash. REPL may refer to
 * capture groups as `\1`..`\9`, `$N` or `${N}` (group 0 is the whole
 * match); `$$` and `\\` are a literal `$` and `\`; `\U..\E`, `\L..\E`,
 * `\u`, `\l` change case as in Perl. A group that did not take part in
 * the match gives the empty string. Any other delimiter, a missing part,
 * an unknown flag, a bad REGEX or REPL, or a reference to a group that
 * REGEX does not have is an error at compile time.
 *
 * A `struct rename` is immutable once compiled, so one can be shared by
 * any number of callers (it holds its own match data per call).
 */
#ifndef TALLY_RENAME_H
#define TALLY_RENAME_H

#include "../model/error.h"

struct rename;

/*
 * Parse and compile `expr`. Returns a new rename, or NULL with a message
 * in err (which names the problem and quotes the expression).
 */
struct rename *rename_compile(const char *expr, struct tally_error *err);

/*
 * Apply to `name`: a new malloc'd string (a copy of `name` when REGEX does
 * not match). Returns NULL with err only when PCRE2 gives up (the match
 * limit is hit by a pathological REGEX), never for an ordinary name.
 */
char *rename_apply(const struct rename *r, const char *name, struct tally_error *err);

/* The expression as given to rename_compile(). */
const char *rename_expr(const struct rename *r);

void rename_free(struct rename *r);

#endif
