# series_misses.gp — cache misses per insert (the windows ending between 0.8 n and n rows)
# against the index size over the store's cache size (log x), a line per strategy, a panel
# per store with a cache (series.csv, the block named series). Past 1 the index no longer fits in the cache.
# Data (misses1.dat, ...): per strategy a block (index i - 1): index/cache, misses/insert.
set multiplot layout 1, panels \
    title 'Cache misses per insert against index size / cache size' font ',14'
set logscale x
set xlabel 'index bytes / cache bytes (log scale)'
set ylabel 'misses per insert'
set yrange [0:*]
set arrow from 1, graph 0 to 1, graph 1 nohead dt 3 lc rgb '#888888'
set key inside left top font ',9' samplen 2 spacing 1
do for [p = 1:panels] {
    set title value(sprintf('title%d', p)) font ',12' noenhanced
    if (p > 1) { unset key }
    file = sprintf('misses%d.dat', p)
    plot for [i = 1:n] file index (i - 1) using 1:2 with linespoints lw 2 pt ptype(i) ps 0.6 \
             lc rgb word(colors, i) title value(sprintf('t_%d', i))
}
unset multiplot
