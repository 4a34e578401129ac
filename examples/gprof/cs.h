/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared declarations of the cs example. */
#ifndef CS_H
#define CS_H
long scale(long v);
long mix(long v);
long twice(long v);
#endif
