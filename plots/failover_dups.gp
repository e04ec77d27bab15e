# failover_dups.gp — a counter failover from a lagging replica during an insert run
# (failover.csv, the matrix's [faults.replicated] block, `idbench insert --fault
# failover-lagged@N:LAG_MS`), per backend and replication mode: the IDs handed out twice
# (asynchronous replication repeats what the primary acknowledged during the lag).
# Data (failover.dat): per run a row: index, IDs handed out twice.
set title 'IDs handed out twice after a counter failover' font ',14'
set ylabel 'IDs handed out twice'
set yrange [0:*]
set style fill solid 0.8 border -1
set boxwidth 0.5
set xrange [-0.6:n - 0.4]
set key off
set xtics noenhanced
plot 'failover.dat' using 1:2:xticlabels(value(sprintf('t_%d', int($1) + 1))) \
     with boxes lc rgb '#cc3311' notitle, \
     '' using 1:2:(sprintf('%d', $2)) with labels offset 0,0.7 notitle
