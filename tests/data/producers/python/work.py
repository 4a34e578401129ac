# SPDX-License-Identifier: GPL-2.0-or-later
# A small Python program for tests/peer/producers.sh, profiled by cProfile
# and converted by pyprof2calltree: recursion, a generator, methods, and
# built-in functions called from Python code (and calling it back: sorted
# with a key function).


class Stack:
    def __init__(self):
        self.items = []

    def push(self, x):
        self.items.append(x)

    def pop(self):
        return self.items.pop()


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def squares(n):
    for i in range(n):
        yield i * i


def main():
    s = Stack()
    for i in range(300):
        s.push(fib(i % 12))
    total = sum(s.pop() for _ in range(300))
    words = sorted(("w%d" % (i * 7919 % 1000) for i in range(500)), key=len)
    print(total, sum(squares(1000)), words[0])


main()
