# reads.gp — pages read per point lookup (misses_per_lookup: pages the store's cache lacked,
# per lookup, after an insert run, cache cold unless the block says warm), by store and
# pattern and strategy: time-ordered keys keep the recent orders in the last leaves, so
# recent:H lookups miss few pages; random keys spread them over every leaf.
# Data: group number i (x_i "STORE PATTERN"), then per strategy the misses per lookup;
# read_note: the first row's rows, lookups, cache and block.
set title sprintf("Pages read per point lookup — %s", read_note)
set ylabel 'pages missed per lookup (cold cache)'
set yrange [0:*]
set style data histograms
set style histogram clustered gap 1.5
set xtics rotate by -30
plot for [i=1:n] datafile using (column(i+1)):xtic(value(sprintf('x_%d', int($1)))) \
     title value(sprintf('t_%d', i)) lc rgb word(colors, i)
