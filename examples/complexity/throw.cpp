// SPDX-License-Identifier: GPL-2.0-or-later
// Calls in two clusters: checked_sum() adds up n values and throws when one
// is negative. At every third size the last value is negative, so those
// calls scan all n values and then throw: their cost is the scan (linear
// in n, as for the other calls) plus the unwinding, a few thousand basic
// blocks more. One routine, two parallel lines of points: no one class.
// Its demangled name is long (templates of std::string, std::vector and
// std::map), for the titles of the plots.
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace tally_demo
{
namespace detail
{
template <typename Key, typename Value, typename Compare = std::less<Key>> class registry
{
  public:
    __attribute__((noinline)) long
    checked_sum(const std::vector<std::pair<Key, std::vector<Value>>> &items,
                const std::map<std::string, std::vector<int>> &opts) const
    {
        long s = static_cast<long>(opts.size());
        for (const auto &it : items)
            for (const auto &v : it.second) {
                if (v < 0) throw std::invalid_argument("negative value");
                s += static_cast<long>(v);
            }
        return s;
    }
};
} // namespace detail
} // namespace tally_demo

int main()
{
    tally_demo::detail::registry<std::string, double> r;
    std::map<std::string, std::vector<int>> opts;
    long total = 0, thrown = 0;
    for (int n = 8; n <= 2000; n += 24) {
        std::vector<std::pair<std::string, std::vector<double>>> items(1);
        items[0].second.assign(n, 1.5);
        if ((n / 24) % 3 == 0) items[0].second[n - 1] = -1;
        try {
            total += r.checked_sum(items, opts);
        } catch (const std::invalid_argument &) {
            thrown++;
        }
    }
    std::printf("%ld %ld\n", total, thrown);
    return 0;
}
