<?php
// SPDX-License-Identifier: GPL-2.0-or-later
function clamp_round($x)
{
    return (int)round(max(0, min($x, 1e9)));
}

function squared($x)
{
    return $x * $x;
}
