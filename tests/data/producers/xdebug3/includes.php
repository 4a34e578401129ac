<?php
// SPDX-License-Identifier: GPL-2.0-or-later
// Code in three files: require, include_once (twice: the second does
// nothing), and functions of one file calling those of another.
require __DIR__ . '/lib/util.php';
include_once __DIR__ . '/lib/shapes.php';
include_once __DIR__ . '/lib/shapes.php';

$total = 0;
for ($i = 1; $i <= 30; $i++) {
    $total += area(['kind' => $i % 2 ? 'square' : 'circle', 'size' => $i]);
}
echo clamp_round($total), "\n";
