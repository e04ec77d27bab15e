# positions.gp — where new keys land in the index: for each strategy, the share of inserts
# (%) whose key fell at each relative position among the keys already in its shard's
# index (0 = before all of them, 1 = after all of them). Random IDs spread evenly over
# the whole index; time-ordered IDs pile up at 1, the rightmost leaf.
# Data: per strategy a block of bin centre, % of inserts.
set multiplot layout rows, cols title sprintf('Where new keys land in the index — %s', subtitle) font ',14'
set xrange [0:1]
set yrange [0:*]
set xtics 0.2 font ',9'
set ytics font ',9'
set xlabel 'position among existing keys (0 = start, 1 = end)' font ',9'
set ylabel '% of inserts' font ',9'
set boxwidth 0.045
unset key
do for [i = 1:n] {
    set title value(sprintf('t_%d', i)) font ',10'
    plot datafile index (i - 1) using 1:2 with boxes lc rgb word(colors, i)
}
unset multiplot
