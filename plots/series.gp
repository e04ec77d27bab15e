# series.gp — throughput as the table grows: inserts per second at each window's end (the
# windows ending between 0.8 n and n rows, their inserts over their time) against the
# rows inserted so far (log x), a line per strategy, a panel per store and cache size
# (series.csv, the block named series). A store that measures no time (pagesim) shows the
# modelled throughput of the ssd preset, and its panel title says so.
# Data (series1.dat, ...): per strategy a block (index i - 1) of rows: rows, inserts/s.
set multiplot layout 1, panels \
    title 'Inserts per second as the table grows (a point: the windows from 0.8 n to n rows)' font ',14'
set logscale x
set xlabel 'rows inserted (log scale)'
set ylabel 'inserts per second (log scale)'
set logscale y
set key inside right top font ',9' samplen 2 spacing 1
do for [p = 1:panels] {
    set title value(sprintf('title%d', p)) font ',12' noenhanced
    if (p > 1) { unset key }
    file = sprintf('series%d.dat', p)
    plot for [i = 1:n] file index (i - 1) using 1:2 with linespoints lw 2 pt ptype(i) ps 0.6 \
             lc rgb word(colors, i) title value(sprintf('t_%d', i))
}
unset multiplot
