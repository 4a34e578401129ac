# The --inclusive=yes rows of tally annotate against callgrind_annotate's, for
# the peer tests (tests/peer/annotate.sh, tests/peer/producers.sh):
#   perl annotate_incl.pl GRAPH ORACLE_ROWS TALLY_ROWS TOTAL
# GRAPH: the oracle's call edges ("caller<TAB>callee"); the rows as
# annotate_rows.pl writes them. Rows of functions outside recursion must be
# equal; rows of recursive ones (which differ on purpose) must not pass TOTAL.
# Exits 0 when every row passed; the last line says how many were checked.
my ($graph, $orows, $trows, $total) = @ARGV;
my %adj; open my $g, "<", $graph or die; while (<$g>) { chomp; my ($a, $b) = split /\t/; push @{$adj{$a}}, $b; }
sub rec { my $s = shift; my %seen; my @st = @{$adj{$s} // []};
    while (@st) { my $n = pop @st; return 1 if $n eq $s; next if $seen{$n}++; push @st, @{$adj{$n} // []}; } 0 }
my %o; open my $o, "<", $orows or die; while (<$o>) { chomp; my ($n, $c) = split /\t/; $o{$n} = $c; }
my ($bad, $checked, $recursive) = (0, 0, 0);
open my $t, "<", $trows or die;
while (<$t>) { chomp; my ($n, $c) = split /\t/;
    next if $n =~ /^<cycle \d+>$/ && ++$recursive;
    my ($first) = split / /, $c;
    if (rec($n)) { $recursive++; if ($first ne "." && $first > $total) { print "# $n: $first > total $total\n"; $bad++; } next; }
    my @ok = split / \| /, ($o{$n} // "");
    # a "/cwd/f.c:fn" duplicate folded by the parser: either value or their sum
    if (@ok == 2) { my @a = split / /, $ok[0]; my @b = split / /, $ok[1];
        push @ok, join " ", map { ($a[$_] eq "." ? 0 : $a[$_]) + ($b[$_] // 0) } 0 .. $#a; }
    $checked++;
    next if grep { $_ eq $c } @ok;
    print "# $n: tally $c, oracle ", ($o{$n} // "none"), "\n"; $bad++;
}
print "# checked $checked rows, $recursive recursive\n";
exit($bad || !$checked ? 1 : 0);
