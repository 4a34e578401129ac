<?php
// SPDX-License-Identifier: GPL-2.0-or-later
// Memory that grows in one function and is given back in another. Xdebug
// measures each call's memory delta; release() frees what fill() took, so
// its delta is negative. The script prints that delta (as measured around
// the call) for the test, which compares it with the profile.
$keep = [];

function fill(&$k, $n)
{
    for ($i = 0; $i < $n; $i++) {
        $k[] = str_repeat('m', 500);
    }
}

function release(&$k)
{
    $k = [];
}

function temporary()
{
    $t = range(1, 20000);
    return count($t);
}

fill($keep, 2000);
$before = memory_get_usage();
release($keep);
$delta = memory_get_usage() - $before;
echo temporary(), "\n";
echo "release: $delta\n";
