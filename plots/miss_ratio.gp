# miss_ratio.gp — miss-ratio curves: pages read because the cache lacked them, per insert,
# against the cache size (both log scale), one line per strategy, a panel per store:
# pagesim's whole curve comes from one pass (LRU stack distances), SQLite's from separate
# runs at each cache size.
# Zero misses cannot sit on a log axis: they are drawn on the dotted line marked 0, a
# decade below the smallest real value of the panel (floorN; tics from 10^lodecN to 10^hidecN).
# Data (miss1.dat, miss2.dat, ...): per strategy a block of cache_pages, misses_per_insert.
set multiplot layout 1, panels title 'Miss-ratio curves: page misses per insert against cache size' font ',14'
set logscale x 2
set logscale y
set format x '%.0f'
set xlabel 'cache size (pages of 4 KiB, log scale)'
set ylabel 'page misses per insert (log scale)'
set grid xtics ytics lc rgb '#e6e6e6'
set key inside left center font ',10' samplen 1.5 spacing 1
do for [p = 1:panels] {
    set title value(sprintf('title%d', p)) font ',12' noenhanced
    nn = value(sprintf('n%d', p))
    cl = value(sprintf('colors%d', p))
    fl = value(sprintf('floor%d', p))
    set yrange [fl / 1.6:*]
    set ytics nomirror ('0' fl)
    do for [d = value(sprintf('lodec%d', p)):value(sprintf('hidec%d', p))] {
        set ytics add (sprintf('10^{%d}', d) 10.0**d)
    }
    set arrow 1 from graph 0, first fl to graph 1, first fl nohead dt 3 lc rgb '#888888' back
    plot for [i = 1:nn] sprintf('miss%d.dat', p) index (i - 1) using 1:2 \
         with linespoints lw 2 pt ptype(i) ps 0.8 lc rgb word(cl, i) \
         title value(sprintf('t%d_%d', p, i))
}
unset multiplot
