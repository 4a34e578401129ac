/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The source of p.out (hand-written, not compiled): tests/golden/formulas.sh. */
static int leaf(int x)
{
    return x * 3 + 1;
}

static int work(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += leaf(i);
    return s;
}

static int rec(int d)
{
    return d ? rec(d - 1) + 1 : 0;
}

int main(void)
{
    return work(10) + work(20) + rec(3);
}
