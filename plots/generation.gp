# generation.gp — ID generation: time per ID by strategy, one thread (solid) and two
# threads sharing one instance (hatched), beside the peers (libuuid, libbson: grey) and
# the cost of one clock read (black), the floor of any time-based ID.
# Data: label number i (x_i its text), ns (median), min, max, colour (0xRRGGBB), ns with
# 2 threads, variant (> 0: a strategy on a counter server, counter@redis: its strategy's
# colour with white cross-hatching over it).
set title sprintf("ID generation: time per ID (Google Benchmark, median of %d repetitions; bars: min–max)", reps)
set ylabel 'time per ID (ns, log scale)'
set logscale y
set xrange [-0.7:ngen-0.3]
set xtics rotate by -30 font ',10' noenhanced
set key inside left top
plot datafile using ($0-0.19):2:(0.36):5:xtic(value(sprintf('x_%d', int($1)))) \
     with boxes lc rgb variable notitle, \
     datafile using ($0+0.19):6:(0.36):5 with boxes fs pattern 4 lc rgb variable notitle, \
     datafile using ($0-0.19):($7 > 0 ? $2 : NaN):(0.36) with boxes fs transparent pattern 7 \
         noborder lc rgb 'white' notitle, \
     datafile using ($0-0.19):3:(0):($4-$3) with vectors heads size screen 0.006,90 lc rgb 'black' lw 1 notitle, \
     datafile using ($0-0.19):4:(sprintf('%.0f', $2)) with labels offset 0,0.7 font ',9' notitle, \
     NaN with boxes fs solid 0.85 lc rgb '#777777' title '1 thread', \
     NaN with boxes fs pattern 4 lc rgb '#777777' title '2 threads, one shared instance'
