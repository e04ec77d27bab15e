# latency.gp — insert latency percentiles (p50, p99, p99.9, max of single inserts, in µs,
# log scale), one line per strategy, a panel per store, at the headline configuration.
# Data (lat1.dat, ...): rows p50 p99 p99.9 max; per strategy a column, µs.
set multiplot layout 1, panels title sprintf('Insert latency percentiles — %s', subtitle) font ',14'
set logscale y
set xrange [-0.3:3.3]
set xtics ('p50' 0, 'p99' 1, 'p99.9' 2, 'max' 3)
set xlabel 'percentile of single-insert latency'
set ylabel 'latency (µs, log scale)'
set key inside left top font ',9' samplen 1.5 spacing 1
do for [p = 1:panels] {
    set title value(sprintf('title%d', p)) font ',12' noenhanced
    if (p > 1) { unset key }
    plot for [i = 1:n] sprintf('lat%d.dat', p) using 1:(column(i + 1)) \
         with linespoints lw 2 pt ptype(i) ps 0.8 lc rgb word(colors, i) \
         title value(sprintf('t_%d', i))
}
unset multiplot
