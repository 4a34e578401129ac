int main(void)
{
    int x = 0;
    x = x * 2;
    return x;
}

void loop(void)
{
    for (;;)
        ;
}
