# SPDX-License-Identifier: GPL-2.0-or-later
"""Callgrind and cachegrind files whose sums of counts come near 2^64-1 or
pass it, for tests/hostile/sums.sh, with what the reader must do, worked out
here with Python's integers: the file's self costs of each event (callgrind:
by name, over all parts; the costs of the line after calls= are inclusive
and not summed) and its calls= counts stay at or under 2^64-1 (cachegrind:
between -2^63 and 2^63-1 once a negative count made the file signed), and
the first line that takes a sum past it is refused, naming the first event
of its part that passes.

    python3 sums_gen.py DIR   writes DIR/NAME.cg or DIR/NAME.cgr, and a
    small file of the same events DIR/NAME.first.cg(r) to merge it into,
    and prints one line a case:
    NAME.cg ok TOTAL,TOTAL,...   (the merged totals, in the first part's order)
    NAME.cg refuse LINE MESSAGE

The files mix many short counts (which the reader's bound covers without
looking at them) with long ones, so that the bound fails somewhere in the
middle of a file, and the sums are exact from there (see
src/formats/sumbound.h).
"""
import os
import random
import sys

MAX = 2**64 - 1


class Lines:
    """What both kinds of file share: short count lines through self.cost()."""

    def small(self, rnd, n):
        """n lines of short counts (1 to 8 digits)."""
        for _ in range(n):
            k = rnd.randint(1, len(self.events))
            self.cost([rnd.choice([0, 1, 7, rnd.randint(10, 10**rnd.randint(2, 8) - 1)])
                       for _ in range(k)])


class Case(Lines):
    def __init__(self, name, layout="line"):
        self.name = name
        self.layout = layout  # "line" or "instr line"
        self.lines = ["# callgrind format", "version: 1", "creator: tests/hostile/sums_gen.py"]
        self.sums = {}  # event name -> self cost sum (all parts)
        self.calls = 0
        self.refuse = None  # (line, message)
        self.events = None
        self.first_events = None
        self.part_sums = None
        self.addr = 0x1000
        self.src = 1

    def emit(self, text):
        self.lines.append(text)
        return len(self.lines)

    def part(self, events, totals=True):
        """A new part (the first one too): header, then fl= and fn=."""
        self.end_part(totals)
        if self.layout != "line":
            self.emit("positions: " + self.layout)
        self.emit("events: " + " ".join(events))
        self.events = events
        if self.first_events is None:
            self.first_events = events
        self.part_sums = [0] * len(events)
        self.emit("fl=a.c")
        self.emit("fn=main")

    def end_part(self, totals=True):
        if self.events is not None and totals:
            self.emit("totals: " + " ".join(str(v) for v in self.part_sums))

    def pos(self, sep=" "):
        self.src += 1
        if self.layout == "line":
            return str(self.src)
        self.addr += 3
        return "0x%x%s%d" % (self.addr, sep, self.src)

    def add(self, ln, costs):
        if self.refuse:
            return
        for e, c in zip(self.events, costs):
            if self.sums.get(e, 0) + c > MAX:
                self.refuse = (ln, "the costs of event %s sum past 2^64-1 (the largest count)" % e)
                return
        for i, (e, c) in enumerate(zip(self.events, costs)):
            self.sums[e] = self.sums.get(e, 0) + c
            self.part_sums[i] += c

    def cost(self, costs, sep=" "):
        """A self-cost line (maybe fewer costs than events)."""
        ln = self.emit(self.pos(sep) + sep + sep.join(str(c) for c in costs))
        self.add(ln, costs)

    def call(self, count, costs):
        """A call: calls= (its count summed) and inclusive costs (not summed)."""
        self.emit("cfn=leaf")
        ln = self.emit("calls=%d %d" % (count, 50))
        if not self.refuse:
            if self.calls + count > MAX:
                self.refuse = (ln, "the call counts of the file sum past 2^64-1 (the largest count)")
            else:
                self.calls += count
        self.emit(self.pos() + " " + " ".join(str(c) for c in costs))

    def jump(self, costs):
        """A jump whose source line carries self costs."""
        self.emit("jump=3 %d" % 60)
        ln = self.emit(self.pos() + " " + " ".join(str(c) for c in costs))
        self.add(ln, costs)

    def write(self, d):
        self.end_part()
        name = self.name + ".cg"
        with open(os.path.join(d, name), "w") as f:
            f.write("\n".join(self.lines) + "\n")
        with open(os.path.join(d, self.name + ".first.cg"), "w") as f:
            f.write("events: %s\nfl=a.c\nfn=first\n1 0\n" % " ".join(self.first_events))
        if self.refuse:
            return "%s refuse %d %s" % (name, self.refuse[0], self.refuse[1])
        return "%s ok %s" % (name, ",".join(str(self.sums.get(e, 0)) for e in self.first_events))


class CgCase(Lines):
    """A cachegrind file: counts per line, one part; negative counts make
    it signed (its counts and sums then int64)."""

    def __init__(self, name, events):
        self.name = name
        self.events = events
        self.lines = ["desc: tests/hostile/sums_gen.py", "cmd: sums", "events: " + " ".join(events),
                      "fl=a.c", "fn=f0"]
        self.sums = [0] * len(events)
        self.signed = False
        self.refuse = None
        self.src = 0
        self.nfn = 0

    def fn(self):
        """A new function (a signed file's records stay under 2^63 even
        when a command adds up a function's lines)."""
        self.nfn += 1
        self.lines.append("fn=f%d" % self.nfn)

    def cost(self, costs, sep=" "):
        self.src += 1
        self.lines.append("%d%s%s" % (self.src, sep, sep.join(str(c) for c in costs)))
        ln = len(self.lines)
        if self.refuse:
            return
        if any(c < 0 for c in costs):
            self.signed = True
        for i, c in enumerate(costs):
            t = self.sums[i] + c
            if self.signed and not -2**63 <= t <= 2**63 - 1:
                self.refuse = (ln, "the costs of event %s sum past a signed 64-bit count "
                               "(the file has negative counts)" % self.events[i])
                return
            if not self.signed and t > MAX:
                self.refuse = (ln, "the costs of event %s sum past 2^64-1 (the largest count)"
                               % self.events[i])
                return
            self.sums[i] = t

    def write(self, d):
        name = self.name + ".cgr"
        with open(os.path.join(d, name), "w") as f:
            f.write("\n".join(self.lines) + "\n")
            f.write("summary: %s\n" % " ".join(str(v) for v in self.sums))
        with open(os.path.join(d, self.name + ".first.cgr"), "w") as f:
            f.write("desc: x\ncmd: sums\nevents: %s\nfl=a.c\nfn=first\n1 0\nsummary: %s\n"
                    % (" ".join(self.events), " ".join("0" for _ in self.events)))
        if self.refuse:
            return "%s refuse %d %s" % (name, self.refuse[0], self.refuse[1])
        return "%s ok %s" % (name, ",".join(str(v) for v in self.sums))


def cases(rnd):
    out = []

    def new(name, layout="line"):
        c = Case(name, layout)
        out.append(c)
        return c

    # many long counts that pass 2^64-1 only together, among short ones
    for ok in (False, True):
        for layout in ("line", "instr line"):
            c = new("together%s%s" % ("-ok" if ok else "", "-instr" if layout != "line" else ""),
                    layout)
            c.part(["Ir", "Dr"])
            c.small(rnd, 3000)
            nbig = 40
            x = (2**64) // (nbig - 1) if not ok else (MAX - 10**12) // nbig
            for i in range(nbig):
                c.small(rnd, 50)
                c.cost([x, rnd.randint(0, 99)])
            if ok:
                # the rest, to 2^64-1 exactly
                c.cost([MAX - c.sums["Ir"], 1])
            else:
                c.small(rnd, 100)

    # the second event passes (the first one large too, but in range)
    c = new("second-event")
    c.part(["Ir", "Dr", "Bc"])
    c.small(rnd, 500)
    for i in range(20):
        c.cost([2**59, 2**60 + i, 5])
        c.small(rnd, 20)

    # the bound fails early (one count near 2^64), the sums end at 2^64-1
    c = new("early-bound-ok")
    c.part(["Ir", "Dr"])
    c.cost([2**63, 1])
    c.small(rnd, 2000)
    c.cost([MAX - c.sums["Ir"] - 5, 2])
    c.cost([5, 0])

    # parts: the sums go across them, by event name (the orders differ);
    # the bound fails in the first part, and only in the last one
    for early in (True, False):
        for ok in (False, True):
            c = new("parts%s%s" % ("-early" if early else "-late", "-ok" if ok else ""))
            c.part(["Ir", "Dr"])
            c.small(rnd, 800)
            c.cost([2**62 if early else 10**8 - 1, 3])
            c.small(rnd, 800)
            c.part(["Dr", "Ir"])
            c.small(rnd, 800)
            c.cost([4, 2**62 if early else 10**8 - 1])
            c.small(rnd, 800)
            c.part(["Ir", "Dr"])
            c.small(rnd, 800)
            rest = MAX - c.sums["Ir"]
            if ok:
                c.cost([rest // 2, 1])
                c.small(rnd, 300)
                c.cost([MAX - c.sums["Ir"], 1])
            else:
                c.cost([rest // 2, 1])
                c.small(rnd, 300)
                c.cost([rest - rest // 2 + 1, 1])
                c.small(rnd, 300)

    # call lines: their costs are inclusive (2^59 each here; 30 of them, so
    # that a command that drops lines can still add them into one call) and
    # not summed (nor in the reader's bound); their counts are
    for ok in (False, True):
        c = new("calls-costs%s" % ("-ok" if ok else ""))
        c.part(["Ir", "Dr"])
        for i in range(30):
            c.call(1, [2**59, 2**59 + i])
            c.small(rnd, 30)
        c.cost([MAX - c.sums["Ir"] - (0 if ok else -1), 1])
    for ok in (False, True):
        c = new("calls-counts%s" % ("-ok" if ok else ""))
        c.part(["Ir"])
        c.small(rnd, 200)
        for i in range(16):
            c.call(2**60 - (1 if ok else 0), [3])
            c.small(rnd, 20)

    # a jump's source line carries self costs
    c = new("jump")
    c.part(["Ir", "Dr"])
    c.small(rnd, 300)
    c.cost([2**63, 0])
    c.small(rnd, 300)
    c.jump([2**63, 0])
    c.small(rnd, 30)

    # lines the fast parser leaves to the general one (tabs between fields)
    c = new("tabs", "instr line")
    c.part(["Ir", "Dr"])
    for i in range(20):
        c.small(rnd, 40)
        c.cost([2**60, 1], sep="\t")
    c.small(rnd, 10)

    # cachegrind: long counts that pass only together, the second event,
    # a file at the limit, and files that become signed part way
    def cg(name, events):
        c = CgCase(name, events)
        out.append(c)
        return c

    for ok in (False, True):
        c = cg("cg-together%s" % ("-ok" if ok else ""), ["Ir", "I1mr", "Dr"])
        c.small(rnd, 3000)
        nbig = 40
        x = (2**64) // (nbig - 1) if not ok else (MAX - 10**12) // nbig
        for i in range(nbig):
            c.small(rnd, 50)
            c.cost([x, 0, rnd.randint(0, 99)])
        if ok:
            c.cost([MAX - c.sums[0], 1, 1])
        else:
            c.small(rnd, 100)
    c = cg("cg-second-event", ["Ir", "Dr"])
    c.small(rnd, 400)
    for i in range(20):
        c.cost([2**59, 2**60 + i])
        c.small(rnd, 20)
    # the bound fails (2^62), then a negative count: sums in int64 from there
    for ok in (False, True):
        c = cg("cg-signed%s" % ("-ok" if ok else ""), ["Ir", "Dr"])
        c.small(rnd, 500)
        c.fn()
        c.cost([2**62, 3])
        c.small(rnd, 200)
        c.fn()
        c.cost([-5, 1])
        c.small(rnd, 200)
        c.fn()
        c.cost([2**63 - 1 - c.sums[0] + (0 if ok else 1), 0])
        c.cost([0, 1]) if ok else c.small(rnd, 20)
    # signed from the first line; the sums pass 2^63-1 where the bound of
    # 2^64-1 still holds (1.5 * 2^53 a line)
    c = cg("cg-signed-bound", ["Ir"])
    c.cost([-1])
    for i in range(1000):
        if i % 100 == 0:
            c.fn()
        c.cost([3 * 2**52])
    # lines the fast parser leaves to the general one (two spaces)
    c = cg("cg-spaces", ["Ir", "Dr"])
    for i in range(20):
        c.small(rnd, 40)
        c.cost([2**60, 1], sep="  ")
    # a negative count first (the bound never fails: short counts), then
    # long ones past 2^63-1
    c = cg("cg-signed-late", ["Ir"])
    c.cost([-1])
    c.small(rnd, 1000)
    for i in range(5):
        c.fn()
        c.cost([2**61])
        c.small(rnd, 100)
    return out


def main():
    d = sys.argv[1]
    rnd = random.Random(17)
    for c in cases(rnd):
        print(c.write(d))


main()
