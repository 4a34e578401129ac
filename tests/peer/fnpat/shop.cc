// SPDX-License-Identifier: GPL-2.0-or-later
// Function patterns (tests/peer/fnpat.sh): functions in namespaces and a
// class whose names match '*take*' at several depths (take_all calls
// Basket::take, which calls count_taken), and others that do not.
#include <cstdio>
#include <cstdlib>

namespace shop {
int count_taken(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++) s += i % 7;
    return s;
}

struct Basket {
    int items[64];
    int take(int n)
    {
        int s = 0;
        for (int i = 0; i < n && i < 64; i++) s += items[i];
        return s + count_taken(n);
    }
};

int take_all(Basket &b, int rounds)
{
    int s = 0;
    for (int r = 0; r < rounds; r++) s += b.take(r % 64);
    return s;
}
} // namespace shop

namespace other {
int fill(shop::Basket &b)
{
    for (int i = 0; i < 64; i++) b.items[i] = i * 3;
    return 64;
}
} // namespace other

int main(int argc, char **argv)
{
    shop::Basket b;
    int rounds = argc > 1 ? atoi(argv[1]) : 200;
    int s = other::fill(b);
    s += shop::take_all(b, rounds);
    s += shop::count_taken(rounds);
    printf("%d\n", s);
    return 0;
}
