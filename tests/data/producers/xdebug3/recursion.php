<?php
// SPDX-License-Identifier: GPL-2.0-or-later
// Direct and mutual recursion, and a recursive walk of nested arrays.
function fib($n)
{
    return $n < 2 ? $n : fib($n - 1) + fib($n - 2);
}

function is_even_n($n)
{
    return $n == 0 ? true : is_odd_n($n - 1);
}

function is_odd_n($n)
{
    return $n == 0 ? false : is_even_n($n - 1);
}

function tree($depth)
{
    return $depth == 0 ? [1, 2, 3] : [tree($depth - 1), tree($depth - 1), $depth];
}

function leaves($t)
{
    $sum = 0;
    foreach ($t as $v) {
        $sum += is_array($v) ? leaves($v) : $v;
    }
    return $sum;
}

echo fib(12), " ", is_even_n(40) ? "even" : "odd", " ", leaves(tree(6)), "\n";
