/* Three functions; built and then stripped of its symbols. */
static volatile unsigned long sink;

__attribute__((noinline)) static void work(int n)
{
    for (int i = 0; i < n; i++)
        sink += (unsigned long)i * 11u;
}

__attribute__((noinline)) static void twice(int n)
{
    work(n);
    if (sink & 1) sink++;
    work(n + 1);
}

int main(void)
{
    for (int i = 0; i < 10; i++)
        twice(100 + i);
    return 0;
}
