# inversion_skew.gp — clock skew against ID order: the share of order pairs, over the
# whole simulated system, whose IDs sort against their true creation order, as the
# instances' clocks are skewed further apart (both log scale). Strategies whose share is
# 0 at every skew cannot be drawn on a log axis and say so in the key.
# Data: per strategy a block of skew_ms (> 0), inversion_frac.
set title 'Clock skew against ID order (simulated; each instance off by up to ±skew)'
set xlabel 'clock skew (ms, log scale)'
set ylabel 'share of order pairs out of creation order (log scale)'
set logscale xy
set format y '10^{%L}'
set grid xtics ytics lc rgb '#e6e6e6'
plot for [i = 1:n] datafile index (i - 1) using 1:2 with linespoints lw 2 pt ptype(i) ps 0.9 \
     lc rgb word(colors, i) title value(sprintf('t_%d', i))
