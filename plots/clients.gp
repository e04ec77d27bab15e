# clients.gp — the clients sweep (insert --clients C, [insert.clients]): per store a column
# of two panels, inserts per second (top) and the p99 of single inserts (bottom, µs, log
# scale) against the writers per shard; a line per strategy at a key width (dashed: keys
# padded past the strategy's own width, e.g. counter at 16 bytes).
# Data (clients1.dat, ...): per line a block (index i - 1) of rows: clients, inserts/s,
# p99 µs, wait µs per order.
set multiplot layout 2, panels title 'Throughput and p99 against writers per shard' font ',14'
set logscale x 2
set xtics (0)
do for [j = 1:words(xt)] { set xtics add (word(xt, j) word(xt, j) + 0) }
set xrange [0.8:*]
set offsets graph 0.04, graph 0.04, 0, 0
set xlabel 'writers per shard (clients)'
set key inside left bottom font ',9' samplen 2 spacing 1
do for [row = 1:2] {
    do for [p = 1:panels] {
        set title value(sprintf('title%d', p)) font ',12' noenhanced
        if (p > 1 || row > 1) { unset key } else { set key }
        file = sprintf('clients%d.dat', p)
        if (row == 1) {
            unset logscale y
            set yrange [0:*]
            set ylabel 'inserts per second'
            plot for [i = 1:n] file index (i - 1) using 1:2 with linespoints lw 2 \
                 dt 0 + word(dashes, i) pt ptype(i) ps 0.9 lc rgb word(colors, i) \
                 title value(sprintf('t_%d', i))
        } else {
            set logscale y
            set yrange [*:*]
            set ylabel 'p99 of a single insert (µs, log scale)'
            plot for [i = 1:n] file index (i - 1) using 1:3 with linespoints lw 2 \
                 dt 0 + word(dashes, i) pt ptype(i) ps 0.9 lc rgb word(colors, i) \
                 title value(sprintf('t_%d', i))
        }
    }
}
unset multiplot
