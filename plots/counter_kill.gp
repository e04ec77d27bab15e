# counter_kill.gp — the counter server SIGKILLed during an insert run and restarted
# (counterkill.csv, `idbench insert --fault kill-counter@N:RESTART_MS`), per backend and
# durability: the orders that failed while it was down, and the IDs it handed out a second
# time after the restart (Redis without appendfsync always forgets its last INCRs).
# Data (kill.dat): per run a row: index, orders failed, IDs handed out twice.
set title 'The counter server killed and restarted during an insert run' font ',14'
set ylabel 'orders'
set yrange [0:*]
set style fill solid 0.8 border -1
set boxwidth 0.35
set xrange [-0.6:n - 0.4]
set key outside right top font ',9' noenhanced
set xtics noenhanced
plot 'kill.dat' using ($1 - 0.18):2:xticlabels(value(sprintf('t_%d', int($1) + 1))) \
     with boxes lc rgb '#4477aa' title 'orders failed (server down)', \
     '' using ($1 + 0.18):3 with boxes lc rgb '#cc3311' title 'IDs handed out twice', \
     '' using ($1 + 0.18):3:(sprintf('%d', $3)) with labels offset 0,0.7 notitle
