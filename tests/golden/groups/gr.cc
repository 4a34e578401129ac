// SPDX-License-Identifier: GPL-2.0-or-later
// The program of tests/golden/groups.sh: groups whose inclusive costs are
// known by construction.
//   - namespace alpha is entered only through alpha::outer() (called once by
//     main); inside it alpha::rec() recurses and calls alpha::leaf(), and
//     alpha::outer() calls beta::work() too: alpha's inclusive cost is
//     alpha::outer()'s, counted once, whatever the recursion inside it;
//   - beta::work() is called by alpha::outer() and by main: beta's inclusive
//     cost is beta::work()'s;
//   - geo::Box<int> and geo::Box<long> are one group, geo::Box<...>, whose
//     self cost is the sum of both get()s.
namespace alpha {
__attribute__((noinline)) long leaf(long x)
{
    return x * 7 + 3;
}
__attribute__((noinline)) long rec(long d)
{
    return d ? rec(d - 1) + leaf(d) : 0;
}
}

namespace beta {
__attribute__((noinline)) long work(long n)
{
    long s = 0;
    for (long i = 0; i < n; i++)
        s += i ^ (s >> 3);
    return s;
}
}

namespace alpha {
__attribute__((noinline)) long outer(long n)
{
    long s = 0;
    for (long i = 0; i < n; i++)
        s += rec(20);
    return s + beta::work(1000);
}
}

namespace geo {
template <class T> struct Box {
    T v;
    __attribute__((noinline)) T get() const
    {
        return v + 1;
    }
};
}

int main(int argc, char **argv)
{
    (void)argv;
    long s = alpha::outer(50 + argc) + beta::work(3000);
    geo::Box<int> bi{argc};
    geo::Box<long> bl{2L * argc};
    for (int i = 0; i < 100; i++)
        s += bi.get() + bl.get();
    return s == 42 ? 1 : 0;
}
