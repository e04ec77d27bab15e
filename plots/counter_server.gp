# counter_server.gp — the cost of an ID when the counter is a real server, by client threads
# (generation.csv: gen/counter@postgres, gen/counter@redis, gen/segment@postgres at 1, 2 and
# 4 threads, one connection each), next to the in-process counter and segment.
# Data (counter.dat): per name a block (index i - 1) of rows: threads, ns per ID. A name on
# a server (counter@redis) is drawn in its strategy's colour, dashed (dashes: 1 = solid).
set title 'ID cost on a counter server, by client threads' font ',14'
set logscale y
set xlabel 'client threads (one instance, a connection each)'
set ylabel 'ns per ID (wall time, log scale)'
set xtics 1
set key outside right top font ',9' noenhanced
plot for [i = 1:n] 'counter.dat' index (i - 1) using 1:2 with linespoints lw 2 pt 7 ps 0.8 \
     lc rgb word(colors, i) dt int(word(dashes, i)) title value(sprintf('t_%d', i))
