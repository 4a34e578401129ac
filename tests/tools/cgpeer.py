#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Compare the callgrind files of one program run under Callgrind and under
`tally record` (tests/peer/vgsuite.sh).

  cgpeer.py CHECK [OPTIONS] ORIGINAL-FILE... -- TALLY-FILE...

Each side is the files of one run: Callgrind's file per dump and per thread
(--combine-dumps=no, --separate-threads=yes) or tally's file with every
part. A part is known by its thread (the file's `thread:` line, else 1) and
its `part:` number (else 1). Prints a first line that says what was
compared, then one line per difference; exits 1 when there is one.

CHECK:
  events  the `events:` line of every part; tally's may add `Dr Dw`, which
          it always counts, where the original has none
  parts   the same parts (thread and part number) with the same
          `desc: Trigger:` text
  totals  tally's `totals:` against the original's `summary:` line, for
          the original's events, per part
  self    the self costs of the functions with a symbol of the objects
          whose path ends with --obj, per part, every event
  arcs    the calls the functions with a symbol of --obj make to
          functions with a symbol, all parts together: the counts, and the
          inclusive cost (first event) of the calls into --obj functions

The rules for what tally does by design (docs/tally-record.md):
  - read and write events are compared as sums (D = Dr + Dw, D1m, DLm,
    DLdm): a read-modify-write is a read for tally, a write for Callgrind;
  - recursion levels (NAME'2) are their function (tally's
    --separate-recs=1); a call into a function already on the stack (a
    callee named NAME'K with K >= 2, or the caller itself) adds nothing to
    the inclusive cost in tally's file: such calls are compared by count;
  - --tol=N (a program whose requests dump, zero or switch collection): a
    block that runs across the request is charged by Callgrind when it
    starts, by tally as its instructions run. The totals of every part, and
    in --requests=F,G the self costs of the functions that make the
    requests and the inclusive costs of all calls, may differ by N;
  - --exit-block=N (the original ran without a cache simulation, which
    counts an instruction when its block is left): the block a thread
    ends in, which Callgrind then never counts, may add up to N to tally's
    totals of a thread's last part;
  - --racy-threads (a program whose threads race): which thread gets
    somewhere first (to bind a PLT entry lazily, say) is the scheduler's
    choice, so tally's threads 2, 3, ... are paired with the original's
    by the rank of their Ir totals (parts and triggers are compared
    before pairing); thread 1's total is not compared (how often it waits
    in pthread_join depends on the schedule), its functions' costs are;
  - self costs of a function that calls into another object through the
    PLT: tally counts the stub's code in the function it leads to,
    Callgrind in the caller. With n such calls into k functions in the
    part, the caller's Ir in tally's file must be lower by n to 2n + 4k
    (one or two instructions a call, the lazy binding's push and PLT0 on
    a first call), every other event lower by no more than that, but
    for the cache-use events (--cacheuse): the use of the lines a stub
    brought in is the callee's in tally, so the caller's may be lower by
    no more than what its callees through the PLT have more in tally's
    part than in the original's; the use events of the other functions
    are equal.
"""
import collections
import re
import sys

sys.dont_write_bytecode = True  # (no __pycache__ beside the tests)
from cgcheck import name_table  # noqa: E402

RW = {'Dr': 'D', 'Dw': 'D', 'D1mr': 'D1m', 'D1mw': 'D1m', 'DLmr': 'DLm', 'DLmw': 'DLm',
      'DLdmr': 'DLdm', 'DLdmw': 'DLdm'}
LEVEL = re.compile(r"'([0-9]+)$")
UNSYM = re.compile(r'^0x[0-9a-f]+$')


def read(path):
    """The parts of one file: dicts with thread, part, trigger, events,
    totals, summary, self {(ob, fn): [values]}, arcs {(a, b): [n, cost]}
    where a and b are (ob, fn)."""
    nm = name_table(lambda i: '(' + i + ')')

    parts, cur = [], None
    thread, partno, trigger = 1, 1, None
    events, npos = [], 1
    ob = fn = '???'
    cob = cfn = None
    calls = None
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('thread:'):
                thread = int(line.split()[1])
            elif line.startswith('part:'):
                partno, trigger, cur = int(line.split()[1]), None, None
            elif line.startswith('desc: Trigger:'):
                trigger = line[len('desc: Trigger:'):].strip()
                if cur:
                    cur['trigger'] = trigger
            elif line.startswith('positions:'):
                npos = len(line.split()) - 1
            elif line.startswith('events:'):
                events = line.split()[1:]
                cur = {'thread': thread, 'part': partno, 'trigger': trigger, 'events': events,
                       'totals': [], 'summary': [],
                       'self': collections.defaultdict(lambda: [0] * len(events)),
                       'arcs': collections.defaultdict(lambda: [0, 0])}
                parts.append(cur)
            elif cur is None:
                continue
            elif line.startswith('totals:'):
                cur['totals'] = [int(x) for x in line.split()[1:]]
            elif line.startswith('summary:'):
                cur['summary'] = [int(x) for x in line.split()[1:]]
            elif line.startswith('ob='):
                ob = nm('ob', line[3:])
            elif line.startswith(('fl=', 'fi=', 'fe=')):
                nm('fl', line[3:])
            elif line.startswith('fn='):
                fn = nm('fn', line[3:])
                cob = cfn = None
            elif line.startswith('cob='):
                cob = nm('ob', line[4:])
            elif line.startswith(('cfi=', 'cfl=', 'jfi=')):
                nm('fl', line[4:])
            elif line.startswith(('cfn=', 'jfn=')):
                v = nm('fn', line[4:])
                if line.startswith('cfn='):
                    cfn = v
            elif line.startswith('calls='):
                calls = int(line[6:].split()[0])
            elif re.match(r'^(0x|[0-9+*-])', line):
                vals = [int(x) for x in line.split()[npos:]]
                if calls is not None:
                    a = cur['arcs'][((ob, fn), (cob or ob, cfn))]
                    a[0] += calls
                    a[1] += vals[0] if vals else 0
                    calls = cob = cfn = None
                else:
                    c = cur['self'][(ob, fn)]
                    for i, v in enumerate(vals):
                        c[i] += v
    return parts


def load(paths):
    parts = []
    for p in paths:
        parts += read(p)
    parts.sort(key=lambda p: (p['thread'], p['part']))
    return parts


def pair_threads(orig, tally):
    """tally's threads after the first renumbered as the original's of the
    same rank by Ir total (the sum of their parts' first event)"""
    def ranks(parts, key):
        tot = collections.Counter()
        for p in parts:
            if p['thread'] > 1:
                tot[p['thread']] += (p[key] or [0])[0]
        return [t for _, t in sorted((v, t) for t, v in tot.items())]
    o, t = ranks(orig, 'summary'), ranks(tally, 'totals')
    if len(o) != len(t):
        return
    new = dict(zip(t, o))
    for p in tally:
        p['thread'] = new.get(p['thread'], p['thread'])
    tally.sort(key=lambda p: (p['thread'], p['part']))


def merged(events, values, keep=None):
    """Values by event name, read and write events summed; only the events
    (after merging) in `keep` when given."""
    out = collections.OrderedDict()
    for i, e in enumerate(events):
        e = RW.get(e, e)
        if keep is not None and e not in keep:
            continue
        out[e] = out.get(e, 0) + (values[i] if i < len(values) else 0)
    return out


def fold(fn):
    return LEVEL.sub('', fn)


def level(fn):
    m = LEVEL.search(fn)
    return int(m.group(1)) if m else 1


class Check:
    def __init__(self):
        self.bad = []
        self.notes = []

    def differ(self, msg):
        self.bad.append(msg)

    def finish(self, title):
        print(title)
        for m in sorted(self.bad)[:40]:
            print('  ' + m)
        for m in sorted(self.notes)[:10]:
            print('  (within the rules) ' + m)
        return 1 if self.bad else 0


def check_events(orig, tally, opts):
    c = Check()
    if len(orig) != len(tally):
        c.differ(f'{len(orig)} parts, tally {len(tally)}')
    for o, t in zip(orig, tally):
        te = list(t['events'])
        if 'Dr' not in o['events']:
            te = [e for e in te if e not in ('Dr', 'Dw')]
        if o['events'] != te:
            c.differ(f"thread {o['thread']} part {o['part']}: {' '.join(o['events'])}; "
                     f"tally {' '.join(t['events'])}")
    extra = '' if not orig or 'Dr' in orig[0]['events'] else ' (and Dr Dw, which tally always counts)'
    ev = ' '.join(orig[0]['events']) if orig else '?'
    return c.finish(f'events: lines are the original\'s: {ev}{extra}')


def check_parts(orig, tally, opts):
    c = Check()
    ol = [(p['thread'], p['part'], p['trigger']) for p in orig]
    tl = [(p['thread'], p['part'], p['trigger']) for p in tally]
    if ol != tl:
        for x in ol:
            if x not in tl:
                c.differ(f'only in the original: thread {x[0]} part {x[1]} Trigger: {x[2]}')
        for x in tl:
            if x not in ol:
                c.differ(f'only in tally: thread {x[0]} part {x[1]} Trigger: {x[2]}')
        if not c.bad:
            c.differ('the same parts in another order')
    threads = len({p['thread'] for p in orig})
    triggers = '; '.join(sorted({str(p['trigger']) for p in orig}))
    return c.finish(f'{len(orig)} parts of {threads} thread(s) with the original\'s thread, part '
                    f'numbers and triggers ({triggers})')


def pairs(orig, tally, c):
    tk = {(p['thread'], p['part']): p for p in tally}
    for o in orig:
        t = tk.get((o['thread'], o['part']))
        if t is None:
            c.differ(f"thread {o['thread']} part {o['part']}: not in tally's files")
            continue
        yield o, t


USE_EVENTS = {'AcCost1', 'SpLoss1', 'AcCost2', 'SpLoss2'}
# what the schedule of racing threads cannot change: the instructions and
# the data accesses (misses, cache use and system calls depend on which
# thread ran when)
RACE_FREE = {'Ir', 'D'}
# the most the lines of one block add to the use events when they leave the
# cache: its code may straddle two lines, each adding at most 1000 (access
# cost) and its size (64 bytes not used)
LINE_USE = {'AcCost1': 2000, 'AcCost2': 2000, 'SpLoss1': 128, 'SpLoss2': 128}


def check_totals(orig, tally, opts):
    c = Check()
    tol, exit_block = opts['tol'], opts['exit_block']
    use_exit = False
    last = {}
    for p in orig:
        last[p['thread']] = p['part']
    for o, t in pairs(orig, tally, c):
        if opts['racy'] and o['thread'] == 1:
            continue
        keep = set(merged(o['events'], []))
        if opts['racy']:
            keep &= RACE_FREE
        ov = merged(o['events'], o['summary'], keep)
        # --cacheuse: Callgrind's summary has 0 for the use events (its
        # running cost never holds them); its totals: line has them
        tot = merged(o['events'], o['totals'], keep)
        for e in USE_EVENTS & set(ov):
            ov[e] = tot.get(e, 0)
        tv = merged(t['events'], t['totals'], keep)
        for e in ov:
            d = tv.get(e, 0) - ov[e]
            where = f"thread {o['thread']} part {o['part']} {e}: {ov[e]}, tally {tv.get(e, 0)}"
            if d == 0:
                continue
            if abs(d) <= tol:
                c.notes.append(where)
            elif exit_block and last[o['thread']] == o['part'] and 0 < d <= exit_block:
                c.notes.append(where + ' (the block the thread ends in)')
            elif e in LINE_USE and last[o['thread']] == o['part'] and 0 < d <= LINE_USE[e]:
                c.notes.append(where + " (the use of the lines of the block the thread ends in)")
                use_exit = True
            else:
                c.differ(where)
    rules = []
    if tol:
        rules.append(f'within {tol} (a block across a request)')
    if exit_block:
        rules.append(f"a thread's last part up to {exit_block} more in tally (the block it ends in)")
    if use_exit:
        rules.append("a thread's last part up to two lines' use more in tally (Callgrind never "
                     "charges the block it ends in)")
    if opts['racy']:
        rules.append("threads paired by rank, thread 1 (its waits) left out, Ir and data "
                     "accesses only")
    return c.finish('totals of every part equal the original\'s summary: lines' +
                    (' (' + '; '.join(rules) + ')' if rules else ''))


def own_named(ob, fn, opts):
    return ob.endswith(opts['obj']) and not UNSYM.match(fn)


def check_self(orig, tally, opts):
    c = Check()
    tol, requests = opts['tol'], opts['requests']
    fns = set()
    use_plt = False
    for o, t in pairs(orig, tally, c):
        keep = set(merged(o['events'], []))
        if opts['racy']:
            keep &= RACE_FREE

        def costs(p):
            res = collections.defaultdict(collections.Counter)
            for (ob, fn), v in p['self'].items():
                if own_named(ob, fn, opts):
                    for e, x in merged(p['events'], v, keep).items():
                        res[fold(fn)][e] += x
            return res

        def plt_calls(p):
            """per caller: calls into other objects, and their callees"""
            n, k = collections.Counter(), collections.defaultdict(set)
            for ((aob, afn), (bob, bfn)), (cnt, _) in p['arcs'].items():
                if own_named(aob, afn, opts) and not bob.endswith(opts['obj']):
                    n[fold(afn)] += cnt
                    k[fold(afn)].add((bob, bfn))
            return n, k

        def use_moved(fn):
            """per use event: what the callees of fn's calls into other
            objects have more in tally's part than in the original's (the
            use of the lines their PLT stubs brought in)"""
            res = collections.Counter()
            for c in k[fn]:
                ocv = merged(o['events'], o['self'].get(c, []), USE_EVENTS)
                tcv = merged(t['events'], t['self'].get(c, []), USE_EVENTS)
                for e in tcv:
                    res[e] += max(0, tcv[e] - ocv.get(e, 0))
            return res
        oc, tc = costs(o), costs(t)
        n, k = plt_calls(t)
        for fn in sorted(set(oc) | set(tc)):
            fns.add(fn)
            where = f"thread {o['thread']} part {o['part']} {fn}"
            ov, tv = oc.get(fn, collections.Counter()), tc.get(fn, collections.Counter())
            slack = tol if fn in requests else 0
            lo, hi = 0, 0
            if n[fn]:
                lo, hi = n[fn], 2 * n[fn] + 4 * len(k[fn])
            dir_ = ov['Ir'] - tv['Ir']
            vals = ', '.join(f'{e} {ov[e]}/{tv[e]}' for e in ov if ov[e] != tv[e])
            if not vals:
                continue
            if not (lo - slack <= dir_ <= hi + slack):
                c.differ(f'{where}: Ir {ov["Ir"]}, tally {tv["Ir"]}' +
                         (f' (calls into {n[fn]} other-object function(s): {lo} to {hi} less)' if n[fn] else ''))
                continue
            bad = [e for e in ov if e != 'Ir' and e not in USE_EVENTS and
                   not (-slack <= ov[e] - tv[e] <= max(dir_, 0) + slack)]
            # the use events: equal, but for the use of the lines the PLT
            # stubs of fn's calls brought in, which tally charges to the
            # function a stub leads to: fn's may be lower by no more than
            # what those callees have more
            moved = use_moved(fn) if n[fn] else collections.Counter()
            bad += [e for e in ov if e in USE_EVENTS and not (0 <= ov[e] - tv[e] <= moved[e])]
            use_plt |= any(e in USE_EVENTS and ov[e] != tv[e] for e in ov)
            if bad:
                c.differ(f'{where}: ' + ', '.join(f'{e} {ov[e]}, tally {tv[e]}' for e in bad))
            else:
                c.notes.append(f'{where} (original/tally): {vals}' +
                               (f'; {n[fn]} calls through the PLT' if n[fn] else ''))
    rules = []
    if requests:
        rules.append(f"{','.join(sorted(requests))} within {tol}: they make the requests")
    if use_plt:
        rules.append("the use events of a caller lower by no more than its callees through the "
                     "PLT have more: the use of the lines a stub brings in is the callee's")
    if opts['racy']:
        rules.append("Ir and data accesses only: the threads race")
    return c.finish(f"self costs of the program's {len(fns)} functions equal the original's, "
                    "but for the PLT stubs of their calls into other objects" +
                    (' (' + '; '.join(rules) + ')' if rules else ''))


def check_arcs(orig, tally, opts):
    c = Check()
    tol = opts['tol']

    def arcs(parts):
        res = collections.defaultdict(lambda: [0, 0, False])
        for p in parts:
            for ((aob, afn), (bob, bfn)), (cnt, cost) in p['arcs'].items():
                if not own_named(aob, afn, opts) or UNSYM.match(bfn):
                    continue
                key = (fold(afn), fold(bfn), bob.endswith(opts['obj']))
                r = res[key]
                r[0] += cnt
                rec = level(bfn) > 1 or afn == bfn
                r[2] |= rec
                if not rec:
                    r[1] += cost
        return res
    oa, ta = arcs(orig), arcs(tally)
    nrec = 0
    for key in sorted(set(oa) | set(ta)):
        a, b, own = key
        where = f'{a} -> {b}'
        if key not in ta:
            c.differ(f'only in the original: {where} {oa[key][0]}')
            continue
        if key not in oa:
            c.differ(f'only in tally: {where} {ta[key][0]}')
            continue
        o, t = oa[key], ta[key]
        nrec += o[2]
        if o[0] != t[0]:
            c.differ(f'{where}: {o[0]} calls, tally {t[0]}')
        if own and o[1] != t[1]:
            msg = f'{where}: inclusive {o[1]}' + (' (outermost calls)' if o[2] else '') + f', tally {t[1]}'
            if abs(o[1] - t[1]) <= tol:
                c.notes.append(msg)
            else:
                c.differ(msg)
    title = (f"the {len(oa)} calls the program's functions make: counts equal the original's, and "
             "the inclusive costs of those into its own functions")
    if nrec:
        title += f' ({nrec} recursive: charged at the outermost call)'
    if tol:
        title += f' (within {tol}: a block across a request)'
    return c.finish(title)


def main(argv):
    opts = {'obj': '', 'tol': 0, 'exit_block': 0, 'requests': set(), 'racy': False}
    args = argv[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    check = args.pop(0)
    while args and args[0].startswith('--') and args[0] != '--':
        a = args.pop(0)
        k, _, v = a[2:].partition('=')
        if k == 'obj':
            opts['obj'] = v
        elif k == 'tol':
            opts['tol'] = int(v)
        elif k == 'exit-block':
            opts['exit_block'] = int(v)
        elif k == 'racy-threads':
            opts['racy'] = True
        elif k == 'requests':
            opts['requests'] = set(x for x in v.split(',') if x)
        else:
            print(f'cgpeer.py: unknown option {a}', file=sys.stderr)
            return 2
    if '--' not in args:
        print(__doc__, file=sys.stderr)
        return 2
    i = args.index('--')
    orig, tally = load(args[:i]), load(args[i + 1:])
    if opts['racy'] and check not in ('events', 'parts'):
        pair_threads(orig, tally)
    checks = {'events': check_events, 'parts': check_parts, 'totals': check_totals,
              'self': check_self, 'arcs': check_arcs}
    if check not in checks:
        print(__doc__, file=sys.stderr)
        return 2
    return checks[check](orig, tally, opts)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
