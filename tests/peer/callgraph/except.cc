// C++ exceptions thrown out of a recursion and caught in main.
#include <stdexcept>

static volatile unsigned long sink;

__attribute__((noinline)) static void down(int d)
{
    sink += (unsigned long)d;
    if (d == 0) throw std::runtime_error("bottom");
    down(d - 1);
}

int main()
{
    for (int i = 0; i < 50; i++) {
        try {
            down(10);
        } catch (const std::exception &e) {
            sink += e.what()[0];
        }
    }
    return 0;
}
