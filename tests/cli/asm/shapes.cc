// SPDX-License-Identifier: GPL-2.0-or-later
// tests/cli/asm.sh: a C++ program with virtual calls, a template, a class
// in a namespace and code inlined from the standard headers (std::vector,
// std::sort), for annotate --asm.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace geo
{
struct Shape {
    virtual ~Shape() {}
    virtual long area() const = 0;
};
struct Rect : Shape {
    long w, h;
    Rect(long a, long b) : w(a), h(b) {}
    long area() const override
    {
        return w * h;
    }
};
struct Tri : Shape {
    long b, h;
    Tri(long x, long y) : b(x), h(y) {}
    long area() const override
    {
        return b * h / 2;
    }
};
} // namespace geo

template <typename T> __attribute__((noinline)) T total(const std::vector<T> &v)
{
    T s = 0;
    for (const T &x : v)
        if (x > 10) s += x;
    return s;
}

__attribute__((noinline)) long areas(const std::vector<geo::Shape *> &shapes)
{
    long s = 0;
    for (const geo::Shape *p : shapes)
        s += p->area();
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 3000;
    std::vector<long> v;
    std::vector<geo::Shape *> shapes;
    for (int i = 0; i < n; i++) {
        v.push_back((i * 7919L) % 1009);
        if (i % 3)
            shapes.push_back(new geo::Rect(i % 17, i % 13));
        else
            shapes.push_back(new geo::Tri(i % 11, i % 7));
    }
    std::sort(v.begin(), v.end());
    long s = total(v) + areas(shapes);
    for (geo::Shape *p : shapes)
        delete p;
    printf("%ld\n", s);
    return 0;
}
