# common.gp — what every idbench plot shares: the terminal, the output file, the data
# format and the styles. `idbench plot DIR` runs   gnuplot -e SETUP VARS common.gp NAME.gp
# in the directory of the plot's data, the image going to stdout, where SETUP sets fmt ('png'
# or 'svg') and datafile (the plot's data: tab-separated numbers, NaN = no value), and VARS
# the plot's count of strategies (n), their colours (colors, one per strategy, the same in
# every plot), titles (t_1, t_2, ...: string literals, so names are never code) and others.
# Optional before this file: width, height (pixels).
if (!exists("width")) width = 1000
if (!exists("height")) height = 600
if (fmt eq 'svg') {
    set terminal svg size width,height dynamic enhanced font 'Helvetica,13' background rgb 'white'
} else {
    if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
        set terminal pngcairo size width,height enhanced font 'Helvetica,11' background rgb 'white'
    } else {
        set terminal png size width,height enhanced background rgb 'white'
    }
}
set datafile separator "\t"
set datafile missing "NaN"
set border 3 lw 1.2 lc rgb '#444444'
set tics nomirror
set grid ytics lc rgb '#e6e6e6' lw 1
set key outside right top vertical Left reverse samplen 2 spacing 1.1 noenhanced
set title font ',14'
set style fill solid 0.85 border lc rgb '#333333'
set bars front
# ptype(i): a point type for the i-th strategy, so lines that coincide stay apart
ptype(i) = int(word('7 5 9 11 13 4 6 8 10 12 14 15', (i - 1) % 12 + 1))
