# clients_wait.gp — the clients sweep's lock wait (wait_ns_per_order: the clients' time
# waiting for the store's write lock or, on a server, for locks and latches, per order, in
# µs) against the writers per shard; a panel per store that measured it, a line per
# strategy at a key width (dashed: keys padded past the strategy's own width).
# Data (wait1.dat, ...): as clients.gp's; column 4 is drawn.
set multiplot layout 1, panels title 'Lock wait per order against writers per shard' font ',14'
set logscale x 2
set xtics (0)
do for [j = 1:words(xt)] { set xtics add (word(xt, j) word(xt, j) + 0) }
set xrange [0.8:*]
set offsets graph 0.04, graph 0.04, 0, 0
set yrange [0:*]
set xlabel 'writers per shard (clients)'
set ylabel 'lock wait per order (µs)'
set key inside left top font ',9' samplen 2 spacing 1
do for [p = 1:panels] {
    set title value(sprintf('title%d', p)) font ',12' noenhanced
    if (p > 1) { unset key }
    plot for [i = 1:n] sprintf('wait%d.dat', p) index (i - 1) using 1:4 with linespoints \
         lw 2 dt 0 + word(dashes, i) pt ptype(i) ps 0.9 lc rgb word(colors, i) \
         title value(sprintf('t_%d', i))
}
unset multiplot
