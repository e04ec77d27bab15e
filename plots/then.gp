# then.gp — a scheme change mid-table (insert --then): pages written per row of the second
# phase, by store and (first -> second) pair: uuidv7 rows into a table uuidv4 filled still
# append at the right edge of the index, where the uuidv4 -> uuidv4 control writes a leaf
# per row.
# Data: store number i (x_i its name), then per pair the phase's pages written per row.
set title sprintf("Second phase: pages written per row — %s", subtitle)
set ylabel 'pages written per row of the second phase'
set yrange [0:*]
set style data histograms
set style histogram clustered gap 1.5
plot for [i=1:n] datafile using (column(i+1)):xtic(value(sprintf('x_%d', int($1)))) \
     title value(sprintf('t_%d', i)) lc rgb word(colors, i)
