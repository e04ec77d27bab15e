# latency_rate.gp — open-loop order latency (from the scheduled arrival to the end of the
# commit that made the order durable) against the offered rate: p99 solid, p50 dashed, a
# line per strategy, a panel per store (openloop.csv, its headline configuration).
# Data (rate1.dat, ...): per strategy a block (index i - 1) of rows: rate, p50 ms, p99 ms.
set multiplot layout 1, panels title sprintf('Order latency against offered rate — %s', ol_subtitle) font ',14'
set logscale y
set xlabel 'offered rate (orders/s)'
set ylabel 'order latency (ms, log scale)'
set key inside left top font ',9' samplen 2 spacing 1
do for [p = 1:panels] {
    set title value(sprintf('title%d', p)) font ',12' noenhanced
    if (p > 1) { unset key }
    file = sprintf('rate%d.dat', p)
    plot for [i = 1:n] file index (i - 1) using 1:3 with linespoints lw 2 pt ptype(i) ps 0.8 \
             lc rgb word(colors, i) title value(sprintf('t_%d', i)).' p99', \
         for [i = 1:n] file index (i - 1) using 1:2 with linespoints dt 2 lw 1.5 pt ptype(i) \
             ps 0.6 lc rgb word(colors, i) title value(sprintf('t_%d', i)).' p50'
}
unset multiplot
