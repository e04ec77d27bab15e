# fill_factor.gp — how full the index's leaf pages are (bytes used / capacity), by store
# and strategy. The dashed line is ln 2 ≈ 0.693, what random insertion into a B-tree that
# splits a full page in half converges to (Yao 1978); a tree that first moves keys to the
# page's siblings (SQLite's balance) settles higher, and appending in key order fills
# pages close to 1. The report says from the data which stores came near the line.
# Data: store number i (x_i its name), then per strategy the fill factor.
set title sprintf("Leaf fill factor — %s", subtitle)
set ylabel 'leaf fill factor (bytes used / page capacity)'
set yrange [0:1.08]
set ytics 0.1
set style data histograms
set style histogram clustered gap 1.5
set arrow 1 from graph 0, first log(2) to graph 1, first log(2) nohead dt 2 lw 2 lc rgb 'black' front
set label 1 'ln 2 ≈ 0.693 (random inserts, half splits)' at graph 0.01, first log(2) + 0.025 front font ',10'
plot for [i=1:n] datafile using (column(i+1)):xtic(value(sprintf('x_%d', int($1)))) \
     title value(sprintf('t_%d', i)) lc rgb word(colors, i)
