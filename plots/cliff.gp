# cliff.gp — the cache cliff: each strategy's throughput over counter's, both over the
# windows ending between 0.8 n and n rows, against index size / cache size (log x), a line
# per strategy, a panel per store with a cache (series.csv, the block named series); 0.5
# dashed: half of counter's. A store that measures no time shows the ssd preset's modelled throughput.
# Data (cliff1.dat, ...): per strategy a block (index i - 1): index/cache, ratio.
set multiplot layout 1, panels \
    title 'Throughput relative to counter as the index outgrows the cache' font ',14'
set logscale x
set xlabel 'index bytes / cache bytes (log scale)'
set ylabel 'inserts/s over counter''s at the same size'
set yrange [0:*]
set arrow from graph 0, first 0.5 to graph 1, first 0.5 nohead dt 2 lc rgb '#888888'
set arrow from 1, graph 0 to 1, graph 1 nohead dt 3 lc rgb '#888888'
set key inside right top font ',9' samplen 2 spacing 1
do for [p = 1:panels] {
    set title value(sprintf('title%d', p)) font ',12' noenhanced
    if (p > 1) { unset key }
    file = sprintf('cliff%d.dat', p)
    plot for [i = 1:n] file index (i - 1) using 1:2 with linespoints lw 2 pt ptype(i) ps 0.6 \
             lc rgb word(colors, i) title value(sprintf('t_%d', i))
}
unset multiplot
