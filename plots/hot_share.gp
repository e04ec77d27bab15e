# hot_share.gp — share of inserts on the busiest shard (issue 25), per strategy: with range
# routing (equal slices of the key space) and hash routing in the simulator, beside the real
# range-sharded engine (store spider; its bars are missing where it did not run, and its key
# entries say "not run": keyentry, so they show without data). A share of 1 is one hot
# shard taking every insert; the fair share is 1/shards (in each title).
# The cross over the simulator's range bar is the 99th percentile over seconds of each
# second's largest share (hot_share_p99).
# Data (hot.dat): per strategy a row: index, sim range, sim hash, spider range, spider hash,
# sim range p99.
set title 'Share of inserts on the busiest shard, by strategy' font ',14'
set ylabel 'share of inserts on the busiest shard'
set yrange [0:1.05]
set style fill solid 0.85 border -1
set boxwidth 0.19
set xrange [-0.6:n - 0.4]
set xtics rotate by -35 noenhanced font ',9'
set key outside right top font ',9' noenhanced
plot 'hot.dat' using ($1 - 0.3):2:xticlabels(value(sprintf('t_%d', int($1) + 1))) \
     with boxes lc rgb '#cc3311' title side_1, \
     '' using ($1 - 0.1):3 with boxes lc rgb '#4477aa' title side_2, \
     '' using ($1 + 0.1):4 with boxes lc rgb '#ee7733' fs pattern 4 notitle, \
     '' using ($1 + 0.3):5 with boxes lc rgb '#66ccee' fs pattern 4 notitle, \
     '' using ($1 - 0.3):6 with points pt 2 ps 1.2 lc rgb '#000000' \
        title 'simulator, range: p99 over seconds', \
     keyentry with boxes lc rgb '#ee7733' fs pattern 4 title side_3, \
     keyentry with boxes lc rgb '#66ccee' fs pattern 4 title side_4
