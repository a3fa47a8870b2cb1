#!/usr/bin/perl
# A stand-in for Brendan Gregg's flamegraph.pl, for the tests: reads
# folded stacks ("frame;frame count") from the files named or stdin and
# writes an SVG with one rectangle per distinct frame.  As the real one,
# it picks a random colour per frame unless given --hash, and walks a
# Perl hash, whose order changes from run to run unless PERL_HASH_SEED
# is fixed: a report that renders flame graphs must set both to be
# deterministic.  As the real one, its SVG is interactive: a script
# over several lines, an onload on the <svg> and mouse handlers on each
# frame's group (a page that inlines it must strip them).  Options it
# does not know are ignored.
use strict;
use warnings;
my ($hash, $title, $count) = (0, 'Flame Graph', 'samples');
my @files;
for my $a (@ARGV) {
	if ($a eq '--hash') { $hash = 1 }
	elsif ($a =~ /^--title=(.*)/) { $title = $1 }
	elsif ($a =~ /^--countname=(.*)/) { $count = $1 }
	elsif ($a !~ /^--/) { push @files, $a }
}
@ARGV = @files;
my %total;
while (my $line = <>) {
	chomp $line;
	next unless $line =~ /^(.*) (\d+)$/;
	my ($stack, $n) = ($1, $2);
	$total{$_} += $n for split /;/, $stack;
}
print qq{<?xml version="1.0" standalone="no"?>\n};
print qq{<svg version="1.1" width="1200" height="400" onload="init(evt)" viewBox="0 0 1200 400" xmlns="http://www.w3.org/2000/svg">\n};
print qq{<script type="text/ecmascript">\n<![CDATA[\n\tfunction init(evt) { details = document.getElementById("details"); }\n\tfunction s(node) { }\n]]>\n</script>\n};
print qq{<text x="10" y="20">$title ($count)</text>\n};
my $y = 30;
for my $f (keys %total) {
	my $c = $hash ? unpack('%8C*', $f) : int(rand(256));
	(my $t = $f) =~ s/&/&amp;/g; $t =~ s/</&lt;/g; $t =~ s/>/&gt;/g;
	print qq{<g onmouseover="s(this)" onmouseout='c()' onclick="zoom(this)">};
	print qq{<rect x="10" y="$y" width="$total{$f}" height="15" fill="rgb($c,100,50)"/><text x="12" y="} . ($y + 12) . qq{">$t</text></g>\n};
	$y += 16;
}
print "</svg>\n";
