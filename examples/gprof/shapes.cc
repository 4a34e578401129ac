// SPDX-License-Identifier: GPL-2.0-or-later
// Example for `tally gprof --demangle`: C++ names (namespaces, classes,
// overloads, templates, operators) whose mangled and demangled forms differ.
#include <cstdio>
#include <vector>

namespace geo {

struct Point {
    double x, y;
    Point operator+(const Point &o) const { return Point{x + o.x, y + o.y}; }
};

class Shape {
  public:
    virtual ~Shape() = default;
    virtual double area() const = 0;
};

class Square : public Shape {
    double side_;

  public:
    explicit Square(double s) : side_(s) {}
    double area() const override { return side_ * side_; }
};

class Disc : public Shape {
    double r_;

  public:
    explicit Disc(double r) : r_(r) {}
    double area() const override { return 3.14159 * r_ * r_; }
};

double grow(double v) { return v * 1.0001; }
double grow(int v) { return v * 1.5; }

template <typename T> T accumulate(const std::vector<T> &v)
{
    T sum{};
    for (const T &e : v)
        sum = sum + e;
    return sum;
}

} // namespace geo

static volatile double sink;

int main()
{
    std::vector<double> areas;
    std::vector<geo::Point> points;
    for (int i = 0; i < 20000; i++) {
        geo::Square s(geo::grow(i % 7));
        geo::Disc d(geo::grow(0.5 * (i % 5)));
        const geo::Shape &a = s, &b = d;
        areas.push_back(a.area() + b.area());
        points.push_back(geo::Point{double(i), double(-i)});
    }
    for (int k = 0; k < 200; k++)
        sink = sink + geo::accumulate(areas) + geo::accumulate(points).x;
    std::printf("%.0f\n", double(sink) / 1e9);
    return 0;
}
