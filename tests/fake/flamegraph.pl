#!/usr/bin/perl
# A stand-in for Brendan Gregg's flamegraph.pl, for the tests: reads
# folded stacks ("frame;frame count") from the files named or stdin and
# writes an SVG with one rectangle per distinct frame.  As the real one,
# it picks a random colour per frame unless given --hash, and walks a
# Perl hash, whose order changes from run to run unless PERL_HASH_SEED
# is fixed: a report that renders flame graphs must set both to be
# deterministic.  As the real one, its SVG is interactive: a script
# over several lines, an onload on the <svg> and mouse handlers on each
# frame's group (a page that inlines it must strip them); a comment
# naming an address, a style sheet whose rules would style a whole page,
# ids in a gradient and texts, and a url(#id) that refers to one (a page
# that inlines several must keep them apart).  tests/t89-standin.sh
# holds it to the real one's structure.  Options it does not know are
# ignored.
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
print qq{<?xml version="1.0" standalone="no"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n};
print qq{<svg version="1.1" width="1200" height="400" onload="init(evt)" viewBox="0 0 1200 400" xmlns="http://www.w3.org/2000/svg">\n};
print qq{<!-- A stand-in of https://github.com/brendangregg/FlameGraph, for tests -->\n};
print qq{<defs>\n\t<linearGradient id="background" y1="0" y2="1" x1="0" x2="0" >\n\t\t<stop stop-color="#eeeeee" offset="5%" />\n\t</linearGradient>\n</defs>\n};
print qq{<style type="text/css">\n\ttext { font-family:Verdana; font-size:12px; }\n\t#search, #details { opacity:0.1; }\n\t.hide { display:none; }\n</style>\n};
print qq{<rect x="0" y="0" width="1200" height="400" fill="url(#background)"/>\n};
print qq{<script type="text/ecmascript">\n<![CDATA[\n\tfunction init(evt) { details = document.getElementById("details"); }\n\tfunction s(node) { }\n]]>\n</script>\n};
print qq{<text id="title" x="10" y="20">$title ($count)</text>\n<text id="details" x="10" y="390"> </text>\n<text id="search" x="1100" y="20">Search</text>\n};
my $y = 30;
for my $f (keys %total) {
	my $c = $hash ? unpack('%8C*', $f) : int(rand(256));
	(my $t = $f) =~ s/&/&amp;/g; $t =~ s/</&lt;/g; $t =~ s/>/&gt;/g;
	print qq{<g onmouseover="s(this)" onmouseout='c()' onclick="zoom(this)"><title>$t ($total{$f} $count)</title>};
	print qq{<rect x="10" y="$y" width="$total{$f}" height="15" fill="rgb($c,100,50)"/><text x="12" y="} . ($y + 12) . qq{">$t</text></g>\n};
	$y += 16;
}
print "</svg>\n";
