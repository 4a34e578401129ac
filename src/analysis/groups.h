/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * groups.h - the functions of a part grouped by ELF object (`ob=`), by
 * source file (`fl=`) or by C++ class or namespace (the scope of the
 * demangled name), each group with its self and inclusive costs
 * (docs/internals/annotate.md, "Groups").
 *
 * A group's self cost is the sum of its functions' self costs. Its
 * inclusive cost is the cost spent while any of its functions is on the
 * stack, counted once: it is computed by the rule of inclusive.h on the
 * graph whose nodes are the groups, whose self costs are the groups', and
 * whose arcs are the calls between functions of different groups (a call
 * inside a group is no entry into it). Where no chain of calls leaves a
 * group and comes back to it, the calls into it never nest and the cost
 * is exact (as for the functions: given the arcs' costs); groups that
 * call each other round are a cycle, whose members' costs are estimates
 * (`estimated`), as for functions in recursion. The functions of the
 * group GROUP_NONE (no object, no file, no class: C functions) have
 * nothing in common: for the other groups' costs each of them is a node
 * of its own, so a group is not in a cycle merely because it calls one C
 * function and another calls it; GROUP_NONE's own cost is computed with
 * it as one node (and is mostly an estimate: C functions call and are
 * called by everything).
 *
 * With the recorded stacks (a contexts file: p->cct, whole stacks) the
 * inclusive costs are exact instead: each stack's cost counts once for
 * every group on it (`exact`).
 *
 * Everything in a group_table belongs to it (group_table_release()). The
 * profile is only read. Errors: -1 with err when a sum overflows.
 */
#ifndef TALLY_ANALYSIS_GROUPS_H
#define TALLY_ANALYSIS_GROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "../model/error.h"
#include "../model/profile.h"

enum group_kind { GROUP_OBJECT, GROUP_FILE, GROUP_CLASS };

/* "object", "file" or "class" -> 0 and *kind; anything else -> -1. */
int group_kind_parse(const char *s, enum group_kind *kind);
const char *group_kind_name(enum group_kind kind);

/* The name of the group of functions without one: no `ob=`, no `fl=`, or no scope. */
#define GROUP_NONE "(none)"

struct group_table {
    enum group_kind kind;
    size_t ngroups, ncols;
    char **names;             /* [ngroups], sorted by name (bytes) */
    size_t *nfuncs;           /* [ngroups] functions with a cost or a call */
    tally_wide *self;         /* [ngroups * ncols] */
    tally_wide *incl;         /* [ngroups * ncols] */
    uint32_t *cycle;          /* [ngroups] 0, or the 1-based cycle of groups it is in (never
                                 GROUP_NONE's: its cost comes from another graph) */
    unsigned char *estimated; /* [ngroups] the inclusive cost is an estimate */
    size_t ncycles;
    int exact; /* the inclusive costs come from the recorded stacks: no estimate */
};

/*
 * Group the functions of part pt of p, with the columns cols[0..ncols)
 * (event expressions, eventset.h). Returns 0, or -1 with err.
 */
int group_table_build(struct group_table *g, const struct profile *p, const struct part *pt,
                      enum group_kind kind, const struct event_expr *cols, size_t ncols,
                      struct tally_error *err);
void group_table_release(struct group_table *g);

/*
 * The class or namespace of a (demangled) C++ function name: its scope,
 * with every template argument list written `<...>` so the instances of a
 * template make one group; the return type, parameters, `const` and
 * `[clone ...]` are left out. `ns::Box<int>::get() const` -> `ns::Box<...>`,
 * `std::vector<int>::push_back(int const&)` -> `std::vector<...>`,
 * `void f<int>(int)` and `main` -> NULL (no scope: a C function or a free
 * function of the global namespace). Returns a malloc'd string or NULL.
 */
char *group_class_of(const char *name);

#endif
