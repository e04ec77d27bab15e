# outage.gp — the central counter's outage, simulated: orders per second that got no ID,
# one line per strategy (the key gives each one's total), with the orders placed per
# second in grey for scale. Only a strategy that asks a server for every ID stops.
# Data: per strategy a block of second, failed orders, orders.
set title sprintf("Orders that got no ID during the counter outage (workload %s)", workload) \
    noenhanced
set xlabel 'simulated time (s)'
set ylabel 'orders per second'
set yrange [0:*]
plot datafile index 0 using 1:3 with steps lw 1.5 dt 2 lc rgb '#999999' title 'orders placed', \
     for [i = 1:n] datafile index (i - 1) using 1:2 with steps lw (i == 1 ? 3 : 2) \
     lc rgb word(colors, i) title value(sprintf('t_%d', i))
