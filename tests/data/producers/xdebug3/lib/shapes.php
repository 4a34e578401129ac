<?php
// SPDX-License-Identifier: GPL-2.0-or-later
function area($shape)
{
    return $shape['kind'] == 'square' ? squared($shape['size']) : circle_area($shape['size']);
}

function circle_area($r)
{
    return M_PI * squared($r);
}
