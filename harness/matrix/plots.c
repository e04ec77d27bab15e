/* plots.c — the plot table, mx_plots[]: one entry per line of MX_PLOT_TABLE (plots.h),
 * each with its name (and so its script plots/NAME.gp), its title, its data preparation
 * and its report sentences. Adding a plot: one line there, one gnuplot script, and its
 * two functions; nothing else lists the plots. */
#include "plots.h"

#define ENTRY(plot, heading) \
    { .name = #plot, .title = heading, .prepare = mx_prep_##plot, .sentences = mx_say_##plot },

const mx_plot mx_plots[] = { MX_PLOT_TABLE(ENTRY) };
const int mx_n_plots = (int)(sizeof mx_plots / sizeof *mx_plots);

_Static_assert(sizeof mx_plots / sizeof *mx_plots <= MX_PLOTS_MAX, "raise MX_PLOTS_MAX");
