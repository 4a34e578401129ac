# The rows of a callgrind_annotate or tally annotate report, for the peer tests
# (tests/peer/annotate.sh, tests/peer/producers.sh):
#   perl annotate_rows.pl MODE CWD < report
# MODE rows: "name<TAB>costs" per row; objrows: the same with the [object];
# tree: the call edges of --tree=both; entries: "name<TAB>costs" of each
# function's own line ("*") in a --tree report. CWD is stripped from file names.
use strict; use warnings;
my ($mode, $cwd) = @ARGV;
my $num = qr/(?:-?[\d,]+|\.)/;
sub norm { my $n = shift; $n =~ s/^\Q$cwd\E\///; return $n; }
sub costs { my $c = shift; $c =~ s/,//g; $c =~ s/\s+/ /g; $c =~ s/^ | $//g; return $c; }
my $state = 0; my ($cur, %edge, %row, @order, @pending);
sub add_edge { my ($k, $c, $cnt) = @_; my $e = $edge{$k} //= [0, []]; $e->[0] += $cnt;
    my @c = split / /, $c; $e->[1][$_] = ($e->[1][$_] // 0) + ($c[$_] eq '.' ? 0 : $c[$_]) for 0 .. $#c; }
while (my $l = <STDIN>) {
    chomp $l;
    if ($state == 0) { $state = 1 if $l =~ / file:function$/; next; }
    if ($state == 1) { $state = 2; next; }    # the rule under the header
    last if $mode ne 'tree' && $mode ne 'entries' && $l eq '';
    last if $l =~ /^-{80}$/;
    next if $l eq '';
    $l =~ s/ \(\s*-?[\d.]+%\)//g;
    if ($mode ne 'tree' && $mode ne 'entries') {
        $l =~ /^\s*($num(?:\s+$num)*)\s+(\S.*)$/ or die "bad row: $l\n";
        my ($c, $n) = (costs($1), $2);
        my $obj = $n =~ s/ (\[[^\]]*\])$// ? " $1" : "";
        $n =~ s/ <cycle \d+>(?: \(estimated\))?$//; $n = norm($n);
        $n .= $obj if $mode eq 'objrows';
        if (exists $row{$n}) { $row{$n} .= " | $c"; } else { $row{$n} = $c; push @order, $n; }
    } else {
        if ($l =~ /^\s*($num(?:\s+$num)*)\s+\*\s+(\S.*)$/) {
            $cur = $2; $cur =~ s/ \[[^\]]*\]$//; $cur =~ s/ <cycle \d+>(?: \(estimated\))?$//; $cur = norm($cur);
            print "$cur\t", costs($1), "\n" if $mode eq 'entries';
            for my $p (@pending) { my ($c, $n, $cnt) = @$p; add_edge("< $n -> $cur", $c, $cnt); }
            @pending = ();
        } elsif ($l =~ /^\s*($num(?:\s+$num)*)\s+([<>])\s+(.*) \(([\d,]+)x\)(?: \[[^\]]*\])?$/) {
            my ($c, $dir, $n, $cnt) = (costs($1), $2, $3, $4);
            $n =~ s/ <cycle \d+>(?: \(estimated\))?$//; $n = norm($n); $cnt =~ s/,//g;
            if ($dir eq '>') { add_edge("> $cur -> $n", $c, $cnt); } else { push @pending, [$c, $n, $cnt]; }
        }
    }
}
if ($mode eq 'entries') { }
elsif ($mode ne 'tree') { print "$_\t$row{$_}\n" for @order; }
else { print "$_\t$edge{$_}[0]\t@{$edge{$_}[1]}\n" for sort keys %edge; }
