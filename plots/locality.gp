# locality.gp — `idbench locality`: pages written per ID, by store (groups) and strategy
# (bars; a padded strategy lighter, in its strategy's colour), log scale: keys that land at the end of the index write
# a page per page-full of rows, random keys up to a page per row.
# Data: a row per store, a column per strategy (NaN where it did not run).
# Variables: n strategies (t_1.. titles, colors, patterns: 1 = padded), nstores (s_1..).
set title 'Pages written per ID: where new keys land decides' font ',14'
set style data histogram
set style histogram cluster gap 1
set logscale y
set yrange [*:*]
set ylabel 'pages written per ID (log scale)' font ',10'
set xtics font ',10'
set xtics ()
do for [s = 1:nstores] { set xtics add (value(sprintf('s_%d', s)) (s - 1)) }
set boxwidth 0.9
set xrange [-0.5:nstores - 0.5]
plot for [i = 1:n] datafile using i title value(sprintf('t_%d', i)) \
    lc rgb word(colors, i) fs solid (int(word(patterns, i)) ? 0.3 : 0.85) border lc rgb '#333333'
