int step(int x)
{
    if (x & 1) return 3 * x + 1;
    return x / 2;
}

int main(void)
{
    int n = 27, k = 0;
    while (n != 1) {
        n = step(n);
        k++;
    }
    return k;
}
