# pages_written.gp — page writes to the store's files per ID inserted, by store and
# strategy (median of the repeats): random keys dirty a different leaf for nearly every
# insert; time-ordered keys fill the rightmost leaf and write each page about once.
# Data: store number i (x_i its name), then per strategy the pages written per ID.
set title sprintf("Pages written per ID — %s", subtitle)
set ylabel 'pages written per ID inserted (log scale)'
set logscale y
set style data histograms
set style histogram clustered gap 1.5
plot for [i=1:n] datafile using (column(i+1)):xtic(value(sprintf('x_%d', int($1)))) \
     title value(sprintf('t_%d', i)) lc rgb word(colors, i)
