# inserts.gp — inserts per second by store (groups) and strategy (bars): median of the
# repeats, error bars min–max, at the headline configuration (see subtitle).
# Data: store number i (x_i its name), then per strategy: median, min, max.
set title sprintf("Inserts per second — %s (bars: min–max)", subtitle)
set ylabel 'inserts per second (log scale)'
set logscale y
set style data histograms
set style histogram errorbars gap 1.5 lw 1
plot for [i=1:n] datafile using (column(3*i-1)):(column(3*i)):(column(3*i+1)) \
     :xtic(value(sprintf('x_%d', int($1)))) title value(sprintf('t_%d', i)) lc rgb word(colors, i)
