# bytes_per_row.gp — bytes on disk per row after the run (table + the ID's index apart from
# the table + every other index: insert.csv's bytes_per_row), by store and strategy (median
# of the repeats): wider IDs take more bytes in every index that holds them, and random
# keys leave leaves part-empty (fill near ln 2) where time-ordered keys fill them.
# Data: store number i (x_i its name), then per strategy the bytes per row.
set title sprintf("Bytes on disk per row — %s", subtitle)
set ylabel 'bytes per row (table + ID index + other indexes)'
set yrange [0:*]
set style data histograms
set style histogram clustered gap 1.5
plot for [i=1:n] datafile using (column(i+1)):xtic(value(sprintf('x_%d', int($1)))) \
     title value(sprintf('t_%d', i)) lc rgb word(colors, i)
