# wal_fpi.gp — write-ahead log bytes and full-page images per ID, by server store and
# strategy (median of the repeats): after a checkpoint, the first change to a page logs the
# whole page (a full-page image); random keys touch a different leaf for nearly every
# insert, so they log many pages, while time-ordered keys touch only the rightmost leaf.
# Data: store number i (x_i its name), then per strategy its WAL bytes per ID and its
# full-page images per ID; fpi_known = 0 when no store in the run counts them (MariaDB's
# redo log has none): the second panel is left out.
set title sprintf("WAL and full-page images per ID\n%s", subtitle)
if (fpi_known) set multiplot layout 1,2
set style data histograms
set yrange [0:*]                      # bars from zero: a ratio is read off their heights
set style histogram clustered gap 1.5
set ylabel 'WAL bytes per ID inserted'
plot for [i=1:n] datafile using (column(2*i)):xtic(value(sprintf('x_%d', int($1)))) \
     title value(sprintf('t_%d', i)) lc rgb word(colors, i)
if (fpi_known) {
  set title ' '
  set ylabel 'full-page images per ID inserted'
  plot for [i=1:n] datafile using (column(2*i+1)):xtic(value(sprintf('x_%d', int($1)))) \
       notitle lc rgb word(colors, i)
  unset multiplot
}
