#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The callgrind reader's rule on the sums of counts (see counts.sh), on
# files where the cheap bound the reader checks it with (lines times the OR
# of the counts, src/formats/sumbound.h) fails part way: many long counts
# that pass 2^64-1 only together, among thousands of short ones; sums that
# go across parts (events in other orders), where the bound fails in the
# first part or only in the last; the inclusive costs of call lines (2^64-1
# each: the bound fails at once, yet they are not summed); call counts; the
# self costs of a jump's line; lines the fast parser leaves to the general
# one. sums_gen.py writes the files and works out, with Python's integers,
# the line that must be refused (or the totals of a file at the limit).
# The cachegrind reader keeps the same rule (signed 64-bit sums once a
# negative count made the file signed) with the same kind of bound.
# Each file goes through the readers' modes: annotate (parts folded,
# addresses dropped), annotate --auto=no (lines dropped), a stream on
# stdin, a gzip file, convert (through the inputs of every command), and
# merge after another file (read to be added into the sum: unindexed).
. "$(dirname "$0")/../lib.sh"

W="$TMP/work"
mkdir -p "$W"
python3 "$(dirname "$0")/sums_gen.py" "$W" >"$W/cases" || { not_ok "sums_gen.py"; echo "1..$TESTN"; exit 1; }
cd "$W" || exit 1

# the numbers of the PROGRAM TOTALS line of annotate (commas dropped, '.' = 0)
totals() {
    sed -n 's/ *PROGRAM TOTALS.*//p' "$1" | tr ' ' '\n' | grep -v '^(' | grep -v '^$' |
        sed 's/,//g; s/^\.$/0/' | paste -sd, -
}

ncases=0
while read -r f verdict rest; do
    ncases=$((ncases + 1))
    name=${f%.*}
    first=$name.first.${f##*.}
    gzip -c "$f" >"$f.gz"
    for mode in "annotate" "annotate --auto=no" "stdin" "gzip" "convert" "merge"; do
        case $mode in
        stdin) shown=-; "$TALLY" annotate --auto=no - <"$f" >out.txt 2>err.txt; rc=$? ;;
        gzip) shown=$f.gz; "$TALLY" annotate "$f.gz" >out.txt 2>err.txt; rc=$? ;;
        convert) shown=$f; "$TALLY" convert --to=json -o out.json "$f" >out.txt 2>err.txt; rc=$? ;;
        # the file after another: read to be added into the sum (unindexed)
        merge) shown=$f; "$TALLY" merge -o merged.out "$first" "$f" >out.txt 2>err.txt; rc=$? ;;
        *) shown=$f; "$TALLY" $mode "$f" >out.txt 2>err.txt; rc=$? ;;
        esac
        if [ "$verdict" = refuse ]; then
            line=${rest%% *}
            msg=${rest#* }
            if [ $rc = 1 ] && [ "$(head -n 1 err.txt)" = "tally: $shown:$line: $msg" ]; then
                ok "$name ($mode): refused at line $line"
            else
                not_ok "$name ($mode): refused at line $line"
                { echo "exit $rc, want: tally: $shown:$line: $msg"; head -n 3 err.txt; } | diag
            fi
        elif [ $rc = 0 ] && [ ! -s err.txt ] &&
            { [ "$mode" = convert ] || [ "$mode" = merge ] || [ "$(totals out.txt)" = "$rest" ]; }; then
            ok "$name ($mode): accepted, totals $rest"
        else
            not_ok "$name ($mode): accepted, totals $rest"
            { echo "exit $rc, totals $(totals out.txt)"; head -n 3 err.txt; } | diag
        fi
    done
    # one part: callgrind_annotate and cg_annotate (Perl's 64-bit integers)
    # print the same
    case $verdict/$f in
    ok/parts*) ;;
    ok/*-signed*) ;; # cg_annotate 3.19 has no negative counts
    ok/*.cg) peer=callgrind_annotate ;;
    ok/*.cgr) peer=cg_annotate ;;
    *) peer= ;;
    esac
    if [ -n "$peer" ] && command -v $peer >/dev/null 2>&1; then
        $peer "$f" >peer.txt 2>&1
        "$TALLY" annotate "$f" >tally.txt 2>&1
        same_text "$f: annotate equals $peer" peer.txt tally.txt
    fi
done <"$W/cases"
if [ "$ncases" -ge 24 ]; then ok "sums_gen.py wrote $ncases cases"; else not_ok "sums_gen.py wrote $ncases cases"; fi
echo "1..$TESTN"
