<?php
// SPDX-License-Identifier: GPL-2.0-or-later
// Many functions of every kind: plain, static and instance methods,
// closures, and callbacks that PHP's own functions call (usort, array_map).
class Counter
{
    private $n = 0;
    public function add($k) { $this->n += $k; return $this; }
    public function get() { return $this->n; }
    public static function make() { return new Counter(); }
}

function square($x) { return $x * $x; }
function cube($x) { return $x * square($x); }
function by_length($a, $b) { return strlen($a) <=> strlen($b); }
function words($n)
{
    $w = [];
    for ($i = 0; $i < $n; $i++) {
        $w[] = str_repeat(chr(97 + $i % 26), 1 + $i % 7);
    }
    return $w;
}

$c = Counter::make();
for ($i = 0; $i < 50; $i++) {
    $c->add(cube($i));
}
$w = words(200);
usort($w, 'by_length');
$lens = array_map(function ($s) { return strlen($s); }, $w);
$upper = array_map('strtoupper', array_slice($w, 0, 20));
echo $c->get(), " ", array_sum($lens), " ", implode(",", array_slice($upper, 0, 3)), "\n";
